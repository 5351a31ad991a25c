import { refreshFailed, refuse } from '../refusals.ts';
import { NO_DIAGNOSTICS } from '../state.ts';
import type { EmitCells } from './cell.ts';

/** The provider's answer at creation, a stuck reservation, and the open statuses a read reports. */
export const outcomeCells: EmitCells<
  | 'Transaction.Issued'
  | 'Transaction.Captured'
  | 'Transaction.Refused'
  | 'Transaction.Unconfirmed'
  | 'Transaction.PaymentProcessing'
  | 'Transaction.AwaitingPayment'
> = {
  'Transaction.Issued': ({ s, c, id }) => {
    if (c.kind !== 'record_issued' && c.kind !== 'refresh_pending') return null;
    return [
      {
        type: 'Transaction.Issued',
        data: {
          transaction_id: id,
          source: c.kind === 'record_issued' ? 'creation' : 'refresh',
          ...c.artifacts,
          provider_reference: c.artifacts.provider_reference ?? s.artifacts.provider_reference,
        },
      },
    ];
  },
  'Transaction.Captured': ({ c, now, policy, id }) => {
    if (c.kind !== 'record_captured') return null;
    if (policy.kind !== 'credit_card') {
      return refuse('conflict', 'Only a card charge is captured at creation.', { transaction_id: id });
    }
    return [
      {
        type: 'Transaction.Captured',
        data: {
          transaction_id: id,
          provider_reference: c.providerReference,
          paid_at: now.toISOString(),
          card_id: c.cardId,
        },
      },
    ];
  },
  'Transaction.Refused': ({ c, policy, id }) => {
    if (c.kind !== 'refresh_failed' && c.kind !== 'record_refused') return null;
    // (x) Only a debit fails after issue; for any other charge such a read is a divergence.
    if (c.kind === 'refresh_failed' && !policy.failsAfterIssue) {
      return refreshFailed(id, 'The provider reported a failure this charge cannot have.');
    }
    return [
      {
        type: 'Transaction.Refused',
        data: {
          transaction_id: id,
          failure_code: c.failureCode,
          provider_reference: c.providerReference,
          // A read carries no diagnostics of its own; the answer to the creation call does.
          ...(c.kind === 'record_refused' ? c.diagnostics : NO_DIAGNOSTICS),
        },
      },
    ];
  },
  'Transaction.Unconfirmed': ({ s, c, now, id }) => {
    if (c.kind === 'record_uncertain') {
      return [
        {
          type: 'Transaction.Unconfirmed',
          data: {
            transaction_id: id,
            reason: 'uncertain_answer',
            provider_reference: c.providerReference,
            ...c.diagnostics,
          },
        },
      ];
    }
    if (c.kind !== 'mark_unknown') return null;
    // A charge the provider already answered (a boleto payment intent back in processing) is not stuck.
    if (s.answered) return [];
    const age = now.getTime() - Date.parse(s.reserved.reserved_at);
    if (age < c.timeoutSeconds * 1000) return [];
    return [
      {
        type: 'Transaction.Unconfirmed',
        data: {
          transaction_id: id,
          reason: 'processing_timeout',
          provider_reference: s.artifacts.provider_reference,
          ...NO_DIAGNOSTICS,
        },
      },
    ];
  },
  'Transaction.PaymentProcessing': ({ policy, id }) => {
    if (!policy.paymentIntent) {
      return refreshFailed(id, 'Status 2 is not a known Pix status.');
    }
    return [{ type: 'Transaction.PaymentProcessing', data: { transaction_id: id } }];
  },
  'Transaction.AwaitingPayment': ({ id }) => [
    { type: 'Transaction.AwaitingPayment', data: { transaction_id: id } },
  ],
};
