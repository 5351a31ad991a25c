import type { DomainError } from '../../decider.ts';
import { refreshFailed, refuse } from '../refusals.ts';
import type { EmitCells } from './cell.ts';

/** A charge paid or expired: read from the provider, by its deadline, or simulated (SPEC 3.1, 4.7). */
export const settlementCells: EmitCells<'Transaction.Paid' | 'Transaction.Expired'> = {
  'Transaction.Paid': ({ s, c, now, policy, id }) => {
    if (c.kind === 'simulate_paid') {
      if (!s.reserved.simulated) return simulationNotAllowed(id);
      return [
        {
          type: 'Transaction.Paid',
          data: {
            transaction_id: id,
            paid_with: s.reserved.method,
            paid_at: now.toISOString(),
            duplicate_payment_at: null,
            source: 'simulation',
          },
        },
      ];
    }
    if (c.kind !== 'refresh_paid') return null;
    if (!policy.acceptsPayment(c.paidWith, c.duplicatePayment)) {
      return refreshFailed(id, 'A Pix charge can only be paid by Pix.');
    }
    return [
      {
        type: 'Transaction.Paid',
        data: {
          transaction_id: id,
          paid_with: c.paidWith,
          paid_at: now.toISOString(),
          duplicate_payment_at: c.duplicatePayment ? now.toISOString() : null,
          source: 'provider',
        },
      },
    ];
  },
  'Transaction.Expired': ({ s, c, now, policy, id }) => {
    if (c.kind === 'simulate_expired') {
      if (!s.reserved.simulated) return simulationNotAllowed(id);
      return [{ type: 'Transaction.Expired', data: { transaction_id: id, source: 'simulation' } }];
    }
    if (c.kind !== 'refresh_expired') return null;
    if (c.source === 'deadline') {
      const deadline = s.artifacts.expires_at;
      const applies = policy.deadlineExpires || s.reserved.simulated;
      if (!applies || deadline === null || now.getTime() < Date.parse(deadline)) return [];
    }
    return [{ type: 'Transaction.Expired', data: { transaction_id: id, source: c.source } }];
  },
};

function simulationNotAllowed(id: string): DomainError {
  return refuse('simulation_not_allowed', 'Only a pending simulated transaction can be simulated.', {
    transaction_id: id,
  });
}
