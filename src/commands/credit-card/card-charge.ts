import type { CardSavedData } from '../../aggregates/card.ts';
import type { MaskedCard } from '../../aggregates/transaction.ts';
import type { CardData } from '../../providers/port.ts';

/**
 * What a card charge carries besides its body (SPEC 4.9): the masked card it shows and reserves, and its
 * secret: the card data, in this process's memory for the one request only, or a stored card whose sealed
 * token is opened at the call.
 */
export interface CardCharge {
  readonly installments: number;
  readonly masked: MaskedCard;
  /** Keyed HMAC of the card data (idempotency compares it); null for a stored card. */
  readonly fingerprint: string | null;
  readonly secret: CardSecret;
}

export type CardSecret =
  | { readonly kind: 'data'; readonly data: CardData }
  | { readonly kind: 'stored'; readonly card: CardSavedData };
