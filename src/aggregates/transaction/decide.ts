import { type DecideContext, type Decision, DomainError } from '../decider.ts';
import type { ErrorCode } from '../errors.ts';
import { isRefresh, type TransactionCommand } from './commands.ts';
import { emit } from './emit.ts';
import type { TransactionEvent } from './events.ts';
import { reserve, sameReservation } from './reserve.ts';
import type { TransactionState } from './state.ts';
import { transactionTransitions } from './table.ts';

const REFUSAL_MESSAGES: Partial<Record<ErrorCode, string>> = {
  not_found: 'The transaction does not exist.',
  provider_status_conflict: 'The provider update would regress a final state; local state kept.',
  simulation_not_allowed: 'Only a pending simulated transaction can be simulated.',
  conflict: 'The transaction is not in a state that allows this operation.',
};

/** The decision of `command` on the charge: the table's cell first, then the cell's own checks. */
export function decide(
  command: TransactionCommand,
  state: TransactionState,
  ctx: DecideContext,
): Decision<TransactionEvent> {
  const move = transactionTransitions[state.status][command.kind];
  // Staleness rule: a refresh result read against an older status never overwrites a newer one.
  if (state.status !== 'none' && isRefresh(command) && command.observedStatus !== state.status) return [];
  if ('refuse' in move) {
    const details = state.status === 'none' ? {} : { transaction_id: state.reserved.transaction_id };
    return new DomainError(move.refuse, REFUSAL_MESSAGES[move.refuse] ?? 'Refused.', details);
  }
  if ('noop' in move) return [];
  if ('repeat' in move) {
    return sameReservation(state, command)
      ? []
      : new DomainError('idempotency_conflict', 'This transaction was reserved with other values.');
  }
  if (command.kind === 'reserve') return reserve(command, ctx.now);
  if (state.status === 'none') throw new Error(`transaction state table: ${command.kind} from none`);
  return emit(move.emits, state, command, ctx);
}
