import { randomInt } from 'node:crypto';
import { saoPauloDate } from '../../src/aggregates/transaction.ts';
import { passesLuhn } from '../../src/contract/credit-card.ts';
import type { CardsCapability, ChargesCapability, ProviderPort } from '../../src/providers/port.ts';
import { pixBody } from './charges.ts';

/** `MM/YYYY` of the month `delta` months from this one in America/Sao_Paulo (SPEC: expiry not in the past). */
export function expirationMonths(delta: number, now = new Date()): string {
  const [y, m] = saoPauloDate(now).split('-').map(Number) as [number, number];
  const index = y * 12 + (m - 1) + delta;
  return `${String((index % 12) + 1).padStart(2, '0')}/${Math.floor(index / 12)}`;
}

/** A valid card charge body (issue 25 item 1): the Pix payer, one installment, card data overridable. */
export function cardBody(
  card: Record<string, unknown> = {},
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const { expires_in: _e, ...common } = pixBody({ description: 'Pedido cartao' });
  return {
    ...common,
    credit_card: {
      holder: 'MARIA SILVA',
      number: '4111111111111111',
      expiration: expirationMonths(24),
      security_code: '123',
      ...card,
    },
    ...overrides,
  };
}

/** Counts of the card and refund operations an adapter was asked to perform. */
export interface CardCalls {
  tokenize: number;
  charge: number;
  refund: number;
  /** The tokens the provider answered (to look for them where they must not be). */
  tokens: string[];
}

export function newCardCalls(): CardCalls {
  return { tokenize: 0, charge: 0, refund: 0, tokens: [] };
}

/** `adapter` with its card calls and refunds counted in `calls` (and the issued tokens kept). */
export function countingCards(adapter: ProviderPort, calls: CardCalls): ProviderPort {
  const cards = adapter.cards;
  if (!cards) return adapter;
  const counted: CardsCapability = {
    ...cards,
    async tokenize(card, ctx) {
      calls.tokenize++;
      const out = await cards.tokenize(card, ctx);
      if (out.kind === 'issued') calls.tokens.push(out.token);
      return out;
    },
    charge(charge, body, token, ctx, now) {
      calls.charge++;
      return cards.charge(charge, body, token, ctx, now);
    },
  };
  const charges: ChargesCapability = {
    ...adapter.charges,
    refund(...args) {
      calls.refund++;
      return adapter.charges.refund(...args);
    },
  };
  return { ...adapter, cards: counted, charges };
}

/**
 * A random Luhn-valid 16-digit Visa-like number ending in `last` (the emulator's test-card rule picks the
 * outcome by the last digit): unique to a run, so finding it anywhere is a leak, not a coincidence.
 */
export function uniqueCardNumber(last: number, avoidLastFour: readonly string[] = []): string {
  for (;;) {
    const n = `4${Array.from({ length: 14 }, () => randomInt(10)).join('')}${last}`;
    // A number whose last four digits are a code searched for would make its masked card (which does rest)
    // look like that code (a CI run met one in a thousand).
    if (passesLuhn(n) && !avoidLastFour.includes(n.slice(-4))) return n;
  }
}
