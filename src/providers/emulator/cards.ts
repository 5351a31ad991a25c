import { randomUUID } from 'node:crypto';
import cardValidator from 'card-validator';
import type { ProviderEnvironment as Environment } from '../port.ts';

/**
 * The emulator's cards (issue 25; wire doc wave 2b §1.2, §1.7, §1.9, §7.7): its token vault, its test-card
 * rule and the settings a test selects where the wire doc leaves two behaviours open.
 *
 * It keeps a card as its last four digits and brand only, never the number or the security code: a token
 * maps to that, and the call log masks both (plus any token) before it records a body.
 *
 * Test cards (Cielo's sandbox rule, wire doc wave 2b §1.9, by the number's last digit; any holder, a valid
 * `MM/YYYY`, a 3-4 digit code). Luhn-valid examples are given for clients that check the number:
 *
 * | Last digit | Outcome of `POST /v2/Payment` | Example |
 * |---|---|---|
 * | 0, 1, 4, 9 | authorized: status 3 | 4000000000000010, 4012888888881881, 4000000000000044, 4000000000000069 |
 * | 2 | refused: status 8, `ReturnCode` "05" (not authorized) | 4000000000000002 |
 * | 3 | refused: status 8, "57" (not permitted) | 4000000000000093 |
 * | 5 | refused: status 8, "78" (blocked) | 4000000000000085 |
 * | 6 | no answer (the client times out), but the charge is made: status 3 on `Transaction/Get` | 4000000000000036 |
 * | 7 | refused: status 8, "77" (cancelled) | 4000000000000077 |
 * | 8 | refused: status 8, "70" (card problem) | 4000000000000028 |
 *
 * And one card by its whole number: {@link N7_CARD} is refused with status 8 and the alphanumeric
 * `ReturnCode` "N7" (security code not accepted).
 */

/** The card whose decline code is alphanumeric (wire doc wave 2b §1.8: Cielo's `N7`, invalid security code). */
export const N7_CARD = '5555000000000057';

export type CardOutcome =
  | { readonly kind: 'authorized' }
  | { readonly kind: 'refused'; readonly returnCode: string }
  | { readonly kind: 'no_answer' };

const BY_LAST_DIGIT: Readonly<Record<string, CardOutcome>> = {
  '0': { kind: 'authorized' },
  '1': { kind: 'authorized' },
  '2': { kind: 'refused', returnCode: '05' },
  '3': { kind: 'refused', returnCode: '57' },
  '4': { kind: 'authorized' },
  '5': { kind: 'refused', returnCode: '78' },
  '6': { kind: 'no_answer' },
  '7': { kind: 'refused', returnCode: '77' },
  '8': { kind: 'refused', returnCode: '70' },
  '9': { kind: 'authorized' },
};

/**
 * Brand codes of the card answers (`CreditCard.Brand`, an int; wire doc wave 2b §1.8). The provider's table is
 * UNKNOWN: these numbers are the emulator's convention, and the adapter never decodes them.
 */
export const BRAND_CODES: Readonly<Record<string, number>> = {
  visa: 1,
  mastercard: 2,
  'american-express': 3,
  elo: 4,
  hipercard: 5,
  'diners-club': 6,
};

/** What the emulator keeps of a card: never the number nor the code. */
export interface KeptCard {
  readonly last4: string;
  /** card-validator's brand name (`visa`, `mastercard`, `american-express`...), or `unknown`. */
  readonly brand: string;
  readonly outcome: CardOutcome;
}

/** The raw card fields of a token request or a charge's `PaymentObject` (wire doc wave 2b §1.2). */
export function validCard(o: Readonly<Record<string, unknown>>): string | null {
  if (typeof o.Holder !== 'string' || o.Holder.trim() === '' || o.Holder.length > 25)
    return 'Holder must have 1 to 25 characters';
  if (typeof o.CardNumber !== 'string' || !/^[0-9]{13,19}$/.test(o.CardNumber))
    return 'CardNumber must have 13 to 19 digits';
  if (typeof o.ExpirationDate !== 'string' || !/^(0[1-9]|1[0-2])\/[0-9]{4}$/.test(o.ExpirationDate))
    return 'ExpirationDate must be MM/YYYY';
  if (typeof o.SecurityCode !== 'string' || !/^[0-9]{3,4}$/.test(o.SecurityCode))
    return 'SecurityCode must have 3 or 4 digits';
  return null;
}

/** A validated number reduced to what is kept, with its test-card outcome. */
export function keptCard(number: string): KeptCard {
  const outcome: CardOutcome =
    number === N7_CARD
      ? { kind: 'refused', returnCode: 'N7' }
      : (BY_LAST_DIGIT[number.slice(-1)] ?? { kind: 'authorized' });
  return {
    last4: number.slice(-4),
    brand: cardValidator.number(number).card?.type ?? 'unknown',
    outcome,
  };
}

/** How `/v2/token` answers a sandbox key (wire doc wave 2b §1.2: the SDKs say a token, two reports say none). */
export type SandboxTokens = 'returned' | 'withheld';
/** The answer shape of `DELETE /v2/CreditCard/Cancel/{id}` (wire doc wave 2b §1.7: Z22 vs OFF-NET). */
export type CancelAnswer = 'boolean' | 'object';

export interface CardSettings {
  sandboxTokens: SandboxTokens;
  cancelAnswer: CancelAnswer;
}

export const DEFAULT_CARD_SETTINGS: Readonly<CardSettings> = {
  sandboxTokens: 'returned',
  cancelAnswer: 'boolean',
};

/** The provider's token vault: a token works only in the environment that made it (wire doc wave 2b §1.2). */
export class CardVault {
  #tokens = new Map<string, KeptCard & { readonly environment: Environment }>();
  settings: CardSettings = { ...DEFAULT_CARD_SETTINGS };

  /** 32 hex characters, as the SDK examples show (wire doc wave 2b §1.2). */
  tokenize(card: KeptCard, environment: Environment): string {
    const token = randomUUID().replaceAll('-', '');
    this.#tokens.set(token, { ...card, environment });
    return token;
  }

  card(token: unknown, environment: Environment): KeptCard | null {
    if (typeof token !== 'string') return null;
    const kept = this.#tokens.get(token);
    return kept && kept.environment === environment ? kept : null;
  }

  /** Control API: the settings after applying the valid fields of `input`; null when one is invalid. */
  configure(input: Readonly<Record<string, unknown>>): CardSettings | null {
    const { sandboxTokens, cancelAnswer } = input;
    if (sandboxTokens !== undefined && sandboxTokens !== 'returned' && sandboxTokens !== 'withheld')
      return null;
    if (cancelAnswer !== undefined && cancelAnswer !== 'boolean' && cancelAnswer !== 'object') return null;
    if (sandboxTokens !== undefined) this.settings.sandboxTokens = sandboxTokens;
    if (cancelAnswer !== undefined) this.settings.cancelAnswer = cancelAnswer;
    return { ...this.settings };
  }

  clear(): void {
    this.#tokens.clear();
    this.settings = { ...DEFAULT_CARD_SETTINGS };
  }
}

const MASK = '<masked>';

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A card-bearing body as the call log keeps it: the number to its last four, no code, no token. */
function maskedCardFields(o: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...o };
  if (typeof copy.CardNumber === 'string') copy.CardNumber = `************${copy.CardNumber.slice(-4)}`;
  for (const k of ['SecurityCode', 'Token'] as const) if (k in copy) copy[k] = MASK;
  return copy;
}

/** The call log's copy of a token request or a card charge (any other body is returned as it is). */
export function maskedCardForCallLog(body: unknown): unknown {
  if (!isRecord(body)) return body;
  if ('CardNumber' in body || 'SecurityCode' in body || 'Token' in body) return maskedCardFields(body);
  if (isRecord(body.PaymentObject)) return { ...body, PaymentObject: maskedCardFields(body.PaymentObject) };
  return body;
}
