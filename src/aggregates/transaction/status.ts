import type { TransactionEventType } from './events.ts';
import type { TransactionStatus } from './vocabulary.ts';

/**
 * The status each charge event leaves (SPEC 3.1), written once (issue 13 item 9): the decider's `evolve`,
 * the transactions read model and the webhook outbox all read it, so the three cannot disagree. `null`:
 * the event records a fact about the charge (a due-date change, a boleto's Pix, a double payment's
 * refund, a pending refund) and the status stays. A total record: a new event type must say which.
 */
export const STATUS_AFTER = {
  'Transaction.Reserved': 'processing',
  'Transaction.Issued': 'pending',
  'Transaction.Captured': 'paid',
  'Transaction.Refused': 'failed',
  'Transaction.Unconfirmed': 'unknown',
  'Transaction.PaymentProcessing': 'processing',
  'Transaction.AwaitingPayment': 'pending',
  'Transaction.Paid': 'paid',
  'Transaction.Expired': 'expired',
  'Transaction.Refunded': 'refunded',
  'Transaction.DueDateChanged': null,
  'Transaction.BoletoPixIssued': null,
  'Transaction.ProviderReferenceFound': null,
  'Transaction.DuplicatePaymentFound': null,
  'Transaction.DuplicateRefundAttempted': null,
  'Transaction.DuplicateRefunded': null,
  'Transaction.DuplicateRefundRefused': null,
  'Transaction.RefundUnconfirmed': null,
  'Transaction.RefundRefused': null,
  'Transaction.DueDateChangeUnconfirmed': null,
  'Transaction.DueDateChangeRefused': null,
  'Transaction.RefundRequested': null,
  'Transaction.DueDateChangeRequested': null,
  'Transaction.RefundPayoutSent': null,
  'Transaction.RefundHandedToOperator': null,
  'Transaction.RefundPayoutReturned': null,
  'Transaction.RefundCancelled': null,
  'Transaction.RefundBankAccountViewed': null,
} as const satisfies { readonly [T in TransactionEventType]: TransactionStatus | null };

/** The status after `type`, or null when the event leaves the status as it was. */
export function statusAfter(type: TransactionEventType): TransactionStatus | null {
  return STATUS_AFTER[type];
}
