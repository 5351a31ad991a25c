/**
 * The words of a charge (SPEC 2.2, 3.1), at the bottom of the transaction aggregate: every other part of it
 * imports these, none of these imports a part.
 */

export const TRANSACTION_STATUSES = [
  'processing',
  'pending',
  'paid',
  'expired',
  'failed',
  'unknown',
  'refunded',
] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];
export type RefundStatus = 'pending' | 'succeeded' | 'failed';

/** The payment methods a charge is created with (SPEC 2.2 `method`): the one list of them in the code. */
export const CHARGE_METHODS = ['pix', 'boleto', 'credit_card'] as const;
export type ChargeMethod = (typeof CHARGE_METHODS)[number];

/** SPEC 2.2 `method` of a stored charge, as reads answer it. */
export const STORED_METHODS = CHARGE_METHODS;
export type StoredMethod = ChargeMethod;

/**
 * What a charge is for its policy (DESIGN.md "Feature modules"): one kind per method, and a Pix Automatic
 * debit, a kind of its own while its method stays `pix` (SPEC 4.11), so policies are keyed by kind.
 */
export const CHARGE_KINDS = ['pix', 'boleto', 'credit_card', 'pix_automatic_debit'] as const;
export type ChargeKind = (typeof CHARGE_KINDS)[number];

/** The kind of a reserved charge, read from its facts: a debit is the one with an authorization. */
export function chargeKindOf(facts: {
  readonly method: ChargeMethod;
  readonly pix_automatic_authorization_id?: string | null | undefined;
}): ChargeKind {
  if (facts.pix_automatic_authorization_id) return 'pix_automatic_debit';
  return facts.method;
}

export const REFUND_ROUTES = ['provider', 'payout', 'operator'] as const;
export type RefundRoute = (typeof REFUND_ROUTES)[number];

/** SPEC 8: the largest amount of a charge, in centavos. */
export const MAX_AMOUNT = 100_000_000;
