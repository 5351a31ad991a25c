import { isRealDate, saoPauloDate } from '../../business-date.ts';
import type { DomainError } from '../../decider.ts';
import type { RefundEvidence } from '../events.ts';
import { invalid, refuse } from '../refusals.ts';
import type { TransactionFacts } from '../state.ts';
import type { EmitCell, EmitCells } from './cell.ts';
import { recordsUncertainty } from './uncertainty.ts';

/** (o): a payout refund still pending with no transfer recorded; otherwise a no-op. */
const payoutAnswer: EmitCell = ({ s, c, id }) => {
  if (c.kind !== 'record_payout_sent' && c.kind !== 'hand_refund_to_operator') return null;
  const open = s.refundStatus === 'pending' && s.refundRoute === 'payout' && s.refundTransferId === null;
  if (!open) return [];
  return c.kind === 'record_payout_sent'
    ? [{ type: 'Transaction.RefundPayoutSent', data: { transaction_id: id, transfer_id: c.transferId } }]
    : [{ type: 'Transaction.RefundHandedToOperator', data: { transaction_id: id, ...c.diagnostics } }];
};

/** A SPEC 4.8 refund: its reservation, the provider's answers, the payout and the person who completes it. */
export const refundCells: EmitCells<
  | 'Transaction.Refunded'
  | 'Transaction.RefundPayoutSent'
  | 'Transaction.RefundHandedToOperator'
  | 'Transaction.RefundPayoutReturned'
  | 'Transaction.RefundCancelled'
  | 'Transaction.RefundBankAccountViewed'
  | 'Transaction.RefundRequested'
  | 'Transaction.RefundUnconfirmed'
  | 'Transaction.RefundRefused'
> = {
  'Transaction.Refunded': ({ s, c, now, id }) => {
    if (c.kind === 'complete_refund') {
      const refused = awaitingOperator(s) ?? evidenceError(c.evidence, s, now);
      if (refused) return refused;
      const data = { transaction_id: id, refund_status: 'succeeded', source: 'operator' } as const;
      return [{ type: 'Transaction.Refunded', data: { ...data, evidence: c.evidence } }];
    }
    if (c.kind !== 'refund' && c.kind !== 'refresh_refunded') return null;
    const source = c.kind === 'refund' ? (c.source ?? 'refund') : 'provider';
    const evidence = c.kind === 'refund' && c.evidence ? { evidence: c.evidence } : {};
    return [
      {
        type: 'Transaction.Refunded',
        data: { transaction_id: id, refund_status: 'succeeded', source, ...evidence },
      },
    ];
  },
  'Transaction.RefundPayoutSent': payoutAnswer,
  'Transaction.RefundHandedToOperator': payoutAnswer,
  'Transaction.RefundPayoutReturned': ({ s, c, id }) => {
    if (c.kind !== 'record_payout_returned') return null;
    const sent = s.refundStatus === 'pending' && s.refundRoute === 'payout' && s.refundTransferId !== null;
    return sent
      ? [{ type: 'Transaction.RefundPayoutReturned', data: { transaction_id: id, ...c.diagnostics } }]
      : [];
  },
  'Transaction.RefundCancelled': ({ s, c, id }) => {
    if (c.kind !== 'cancel_refund') return null;
    const refused = awaitingOperator(s);
    if (refused) return refused;
    const reason = c.reason.trim();
    if (reason.length < 3 || reason.length > 500) {
      return invalid('reason', 'Say why the refund is cancelled, in 3 to 500 characters.');
    }
    return [{ type: 'Transaction.RefundCancelled', data: { transaction_id: id, reason } }];
  },
  'Transaction.RefundBankAccountViewed': ({ s, c, id }) => {
    if (c.kind !== 'view_refund_bank_account') return null;
    if (s.refundVault === null) {
      return refuse('conflict', 'No refund of this charge holds a bank account.', { transaction_id: id });
    }
    return [
      {
        type: 'Transaction.RefundBankAccountViewed',
        data: { transaction_id: id, vault_id: s.refundVault.vault_id },
      },
    ];
  },
  'Transaction.RefundRequested': ({ s, c, now, id }) => {
    if (c.kind !== 'request_refund') return null;
    if (s.refundStatus === 'pending') {
      return refuse('refund_in_progress', 'A refund of this charge is already in progress.', {
        transaction_id: id,
      });
    }
    const route = c.route === undefined || c.route === 'provider' ? {} : { route: c.route };
    const account = c.bankAccount ? { bank_account: c.bankAccount } : {};
    return [
      {
        type: 'Transaction.RefundRequested',
        data: { transaction_id: id, requested_at: now.toISOString(), ...route, ...account },
      },
    ];
  },
  'Transaction.RefundUnconfirmed': ({ s, c, now, id }) => {
    if (c.kind !== 'refund_unconfirmed') return null;
    const pending = s.refundStatus === 'pending';
    if (!recordsUncertainty(s.refundInFlight, s.refundRequestedAt, pending, c.staleAfterSeconds, now)) {
      return [];
    }
    return [{ type: 'Transaction.RefundUnconfirmed', data: { transaction_id: id, ...c.diagnostics } }];
  },
  'Transaction.RefundRefused': ({ c, id }) => {
    if (c.kind !== 'refund_refused') return null;
    return [{ type: 'Transaction.RefundRefused', data: { transaction_id: id, ...c.diagnostics } }];
  },
};

/** (k): a refund awaiting an operator: route `operator`, pending or failed after a returned transfer. */
function awaitingOperator(s: TransactionFacts): DomainError | null {
  const waiting =
    s.refundRoute === 'operator' && (s.refundStatus === 'pending' || s.refundStatus === 'failed');
  if (waiting) return null;
  return refuse('conflict', 'No refund of this charge awaits an operator.', {
    transaction_id: s.reserved.transaction_id,
  });
}

/** (k): the evidence of an integral refund: the charge's amount, a real date not in the future (Sao Paulo). */
function evidenceError(evidence: RefundEvidence, s: TransactionFacts, now: Date): DomainError | null {
  if (evidence.amount !== s.reserved.amount) {
    return invalid('evidence.amount', `The refund is integral: ${s.reserved.amount} centavos.`);
  }
  const day = evidence.paid_on;
  if (day !== null && (!isRealDate(day) || day > saoPauloDate(now))) {
    return invalid('evidence.paid_on', 'The date the money was returned: a real date, not in the future.');
  }
  return null;
}
