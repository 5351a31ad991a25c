import type { CardSavedData } from '../../aggregates/card.ts';
import type { SubscriptionCard } from '../../aggregates/subscription.ts';
import type { MaskedCard } from '../../aggregates/transaction.ts';
import type { CardData } from '../../providers/port.ts';

/**
 * What a card charge carries besides its body (SPEC 4.9): the masked card it shows and reserves, and its
 * secret: the card data, in this process's memory for the one request only, or a stored card (or a
 * subscription's card) whose sealed token is opened at the call.
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
  | { readonly kind: 'stored'; readonly card: CardSavedData }
  /** A card subscription's card (SPEC 4.10): its token sealed to the subscription (binding card id = its id). */
  | { readonly kind: 'subscription'; readonly subscriptionId: string; readonly card: SubscriptionCard };

/** Where a kept token was sealed: the provider and environment it opens for; null for card data. */
export function keptAt(
  secret: CardSecret,
): { readonly providerId: string | null; readonly environment: 'sandbox' | 'production' } | null {
  if (secret.kind === 'data') return null;
  return { providerId: secret.card.provider_id, environment: secret.card.environment };
}
