import type { MaskedCard } from '../../aggregates/transaction.ts';
import type { CardData } from '../../providers/port.ts';
import { cardBrand } from './brand.ts';
import type { CardCharge } from './card-charge.ts';
import { type CardKeyConfig, cardFingerprint, cardKey } from './card-token.ts';

/**
 * A card charge from the card data a payer typed (POST /v1/credit-card and the checkout page's card form):
 * the masked card it shows and reserves, the keyed fingerprint idempotency compares, and the data itself,
 * held in this request's memory for the one tokenize call.
 */
export async function cardChargeFromData(
  config: CardKeyConfig,
  data: CardData,
  installments: number,
): Promise<CardCharge> {
  return {
    installments,
    masked: maskedCardOf(data),
    fingerprint: cardFingerprint(await cardKey(config), data),
    secret: { kind: 'data', data },
  };
}

/** What a card's data shows once masked (SPEC 4.9): brand, last four, holder and expiry; no stored card yet. */
export function maskedCardOf(data: CardData): MaskedCard {
  return {
    card_id: null,
    brand: cardBrand(data.number),
    last_four: data.number.slice(-4),
    holder: data.holder,
    expiration: data.expiration,
  };
}
