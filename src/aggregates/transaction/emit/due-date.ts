import { addDays, isRealDate, saoPauloDate } from '../../business-date.ts';
import type { DomainError } from '../../decider.ts';
import { invalid, refuse } from '../refusals.ts';
import type { EmitCell, EmitCells } from './cell.ts';
import { recordsUncertainty } from './uncertainty.ts';

/** The provider's uncertain or refusing answer to a due-date change (w), recorded as `type`. */
const dueDateAnswer =
  (type: 'Transaction.DueDateChangeUnconfirmed' | 'Transaction.DueDateChangeRefused'): EmitCell =>
  ({ s, c, now, policy, id }) => {
    if (c.kind !== 'due_date_unconfirmed' && c.kind !== 'due_date_refused') return null;
    if (!policy.dueDate || s.boletoDueDate === null) {
      return refuse('conflict', 'Only an open boleto has a due date to change.', { transaction_id: id });
    }
    if (!isRealDate(c.dueDate)) return invalid('due_date', 'The due date must be a real date (YYYY-MM-DD).');
    if (c.kind === 'due_date_unconfirmed') {
      const pending = s.pendingDueDate === c.dueDate;
      const { dueDateInFlight: inFlight, dueDateRequestedAt: at } = s;
      if (!recordsUncertainty(inFlight, at, pending, c.staleAfterSeconds, now)) return [];
    }
    return [{ type, data: { transaction_id: id, boleto_due_date: c.dueDate, ...c.diagnostics } }];
  };

/** A boleto's due-date change (SPEC 4.8): its reservation, the provider's answers, the change itself. */
export const dueDateCells: EmitCells<
  | 'Transaction.DueDateChangeUnconfirmed'
  | 'Transaction.DueDateChangeRefused'
  | 'Transaction.DueDateChangeRequested'
  | 'Transaction.DueDateChanged'
> = {
  'Transaction.DueDateChangeUnconfirmed': dueDateAnswer('Transaction.DueDateChangeUnconfirmed'),
  'Transaction.DueDateChangeRefused': dueDateAnswer('Transaction.DueDateChangeRefused'),
  'Transaction.DueDateChangeRequested': ({ s, c, now, policy, id }) => {
    if (c.kind !== 'request_due_date_change') return null;
    const current = s.boletoDueDate;
    if (!policy.dueDate || current === null) {
      return refuse('conflict', 'Only an open boleto has a due date to change.', { transaction_id: id });
    }
    const outside = dueDateOutsideWindow(c.dueDate, now);
    if (outside) return outside;
    if (s.pendingDueDate !== null) {
      return refuse(
        'change_in_progress',
        `A change of the due date to ${s.pendingDueDate} is already in progress.`,
        { transaction_id: id },
      );
    }
    if (c.dueDate === current) return [];
    return [
      {
        type: 'Transaction.DueDateChangeRequested',
        data: { transaction_id: id, boleto_due_date: c.dueDate, requested_at: now.toISOString() },
      },
    ];
  },
  'Transaction.DueDateChanged': ({ s, c, now, policy, id }) => {
    if (c.kind !== 'change_due_date') return null;
    const current = s.boletoDueDate;
    if (!policy.dueDate || current === null) {
      return refuse('conflict', 'Only an open boleto has a due date to change.', { transaction_id: id });
    }
    const outside = dueDateOutsideWindow(c.dueDate, now);
    if (outside) return outside;
    // The same date: nothing changes, and a change pending for it is settled by the date itself.
    if (c.dueDate === current && s.pendingDueDate === null) return [];
    const data = {
      transaction_id: id,
      boleto_due_date: c.dueDate,
      previous_due_date: current,
      expires_at: c.expiresAt,
      ...(c.artifacts ?? {}),
    };
    return [{ type: 'Transaction.DueDateChanged', data }];
  },
};

/** SPEC 4.8 (d): a new due date lies between today and today + 365 days in America/Sao_Paulo. */
function dueDateOutsideWindow(dueDate: string, now: Date): DomainError | null {
  const today = saoPauloDate(now);
  if (isRealDate(dueDate) && dueDate >= today && dueDate <= addDays(today, 365)) return null;
  return invalid('due_date', 'The due date must be between today and today + 365 days (Sao Paulo).');
}
