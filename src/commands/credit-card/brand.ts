import cardValidator from 'card-validator';

/** card-validator's names of the brands Brazilian acquirers take, as Calebe writes them. */
const NAMES: Readonly<Record<string, string>> = { 'american-express': 'amex', 'diners-club': 'diners' };

/**
 * The card's brand from its number (Braintree's card-validator, which knows Elo and Hipercard), for the
 * masked card a Transaction shows; `unknown` for a Luhn-valid number of no brand it knows (SPEC 4.9 asks
 * only for 13 to 19 digits and the Luhn check). The provider's own brand code is not decoded (wire doc
 * wave 2b §1.8: its table is unknown).
 */
export function cardBrand(number: string): string {
  const type = cardValidator.number(number).card?.type;
  if (!type) return 'unknown';
  return NAMES[type] ?? type;
}
