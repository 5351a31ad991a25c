import type { EmitCells } from './cell.ts';

/**
 * A boleto paid by both the boleto and its Pix (SPEC 2.2): the double payment found (u2), then the automatic
 * refund of the Pix, claimed before each call and settled by its answer (u).
 */
export const doublePaymentCells: EmitCells<
  | 'Transaction.DuplicatePaymentFound'
  | 'Transaction.DuplicateRefundAttempted'
  | 'Transaction.DuplicateRefunded'
  | 'Transaction.DuplicateRefundRefused'
> = {
  'Transaction.DuplicatePaymentFound': ({ s, c, now, policy, id }) => {
    if (c.kind !== 'refresh_duplicate_payment') return null;
    const applies = policy.boletoPix && !s.reserved.simulated;
    if (!applies || s.duplicatePaymentAt !== null) return [];
    return [
      {
        type: 'Transaction.DuplicatePaymentFound',
        data: { transaction_id: id, paid_with: 'boleto', duplicate_payment_at: now.toISOString() },
      },
    ];
  },
  'Transaction.DuplicateRefundAttempted': ({ s, c, now, id }) => {
    if (c.kind !== 'claim_duplicate_refund') return null;
    const d = s.duplicateRefund;
    const open = d !== null && (d.status === 'due' || d.status === 'attempted');
    if (!open || d.attempts !== c.observedAttempts) return [];
    const last = d.attemptedAt === null ? null : Date.parse(d.attemptedAt);
    if (last !== null && now.getTime() - last < c.retryAfterMs) return [];
    return [
      {
        type: 'Transaction.DuplicateRefundAttempted',
        data: { transaction_id: id, attempt: d.attempts + 1, attempted_at: now.toISOString() },
      },
    ];
  },
  'Transaction.DuplicateRefunded': ({ s, c, id }) => {
    if (c.kind !== 'record_duplicate_refund') return null;
    const d = s.duplicateRefund;
    if (d === null || d.status === 'succeeded' || d.status === 'refused' || c.attempt !== d.attempts) {
      return [];
    }
    if (c.source === 'refund' && d.status !== 'attempted') return [];
    return [
      {
        type: 'Transaction.DuplicateRefunded',
        data: { transaction_id: id, attempt: d.attempts, source: c.source },
      },
    ];
  },
  'Transaction.DuplicateRefundRefused': ({ s, c, id }) => {
    if (c.kind !== 'record_duplicate_refund_refused') return null;
    const d = s.duplicateRefund;
    if (d === null || d.status !== 'attempted' || c.attempt !== d.attempts) return [];
    return [
      {
        type: 'Transaction.DuplicateRefundRefused',
        data: { transaction_id: id, attempt: d.attempts, ...c.diagnostics },
      },
    ];
  },
};
