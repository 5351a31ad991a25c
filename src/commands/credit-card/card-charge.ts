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

/** Where a kept token (a stored card's or a subscription's) was made. */
type KeptAt = Pick<CardSavedData, 'provider_id' | 'environment' | 'subaccount_id'>;

/**
 * Whether a kept token opens where a charge is routed now. A token opens only in the account that made it
 * (wire doc wave 2b §1.2): the same provider record and environment and, on a marketplace (SPEC 2.8), the
 * same subaccount link. A card kept before the link was recorded (issue 28) is judged as before, by provider
 * and environment only: which link made it is not known, and the provider has the last word.
 */
export function opensAt(
  kept: KeptAt,
  routed: {
    readonly providerId: string | null;
    readonly subaccountId: string | null;
    readonly environment: KeptAt['environment'];
  },
): boolean {
  return (
    kept.provider_id === routed.providerId &&
    kept.environment === routed.environment &&
    (kept.subaccount_id === undefined || kept.subaccount_id === routed.subaccountId)
  );
}
