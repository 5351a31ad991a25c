import type { AttentionCode, SkipCode } from '../../../aggregates/subscription-cycle.ts';
import type { TransactionStatus } from '../../../aggregates/transaction.ts';

/** What issuing a cycle produced: its charge or Pix link, and how it ended (docs/decisions.md, issue 26). */
export type Issued =
  | { readonly kind: 'issued'; readonly transactionId: string | null; readonly checkoutId: string | null }
  | { readonly kind: 'attention'; readonly transactionId: string; readonly code: AttentionCode }
  /** Nothing was charged and nothing can be for this cycle (a Pix Automatic authorization that ended). */
  | { readonly kind: 'skipped'; readonly code: SkipCode }
  /**
   * The charge under the cycle's key is still being made by another attempt (a second worker, or one that
   * crashed before the reconciler ends it): the cycle stays pending and is looked at again.
   */
  | { readonly kind: 'in_progress' };

/**
 * A cycle's charge status (SPEC 3.1) as the cycle records it (SPEC 2.5, 3.4): issued unless refused
 * (`provider_rejected`) or unconfirmed (`payment_unknown`, `payment_processing`); a charge already paid,
 * expired or refunded when a replay reads it was issued.
 */
export function issuedFromCharge(transactionId: string, status: TransactionStatus): Issued {
  switch (status) {
    case 'failed':
      return { kind: 'attention', transactionId, code: 'provider_rejected' };
    case 'unknown':
      return { kind: 'attention', transactionId, code: 'payment_unknown' };
    case 'processing':
      return { kind: 'attention', transactionId, code: 'payment_processing' };
    default:
      return { kind: 'issued', transactionId, checkoutId: null };
  }
}
