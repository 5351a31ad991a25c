import type { DecideContext } from '../decider.ts';
import { DomainError } from '../decider.ts';
import { isRefresh, type TransactionCommand } from './commands.ts';
import type { Emit, EmitCells } from './emit/cell.ts';
import { doublePaymentCells } from './emit/double-payment.ts';
import { dueDateCells } from './emit/due-date.ts';
import { lateFactCells } from './emit/late-facts.ts';
import { outcomeCells } from './emit/outcome.ts';
import { refundCells } from './emit/refund.ts';
import { settlementCells } from './emit/settlement.ts';
import type { TransactionEventType } from './events.ts';
import { policyOf } from './policies/index.ts';
import { refreshFailed, refuse } from './refusals.ts';
import type { TransactionFacts } from './state.ts';
import { chargeKindOf, type TransactionStatus } from './vocabulary.ts';

/** Every event a cell after the reservation may emit, by family: a new event type must name its cell. */
const CELLS: EmitCells<Exclude<TransactionEventType, 'Transaction.Reserved'>> = {
  ...outcomeCells,
  ...settlementCells,
  ...refundCells,
  ...dueDateCells,
  ...lateFactCells,
  ...doublePaymentCells,
};

/** The event of an `emits` cell, with the cell's own checks. */
export function emit(
  type: TransactionEventType,
  s: TransactionFacts,
  c: TransactionCommand,
  ctx: DecideContext,
): Emit {
  const id = s.reserved.transaction_id;
  const policy = policyOf(chargeKindOf(s.reserved));
  if (needsExternalId(s.status, c)) {
    const ref = externalId(s, carriedReference(c));
    if (ref instanceof DomainError) return ref;
  } else if (isRefresh(c)) {
    // A pending charge has its external id, unless it is simulated (the simulator answers locally).
    const carried = carriedReference(c);
    const known = s.artifacts.provider_reference;
    if (known !== null && carried !== null && carried !== known) {
      return refreshFailed(id, 'The provider answered about another charge.');
    }
  }
  const decided = type === 'Transaction.Reserved' ? null : CELLS[type]({ s, c, now: ctx.now, policy, id });
  if (decided === null) {
    throw new Error(`transaction state table: ${c.kind} cannot emit ${type} from ${s.status}`);
  }
  return decided;
}

/** (r): the external id a refresh result is about. */
function externalId(state: TransactionFacts, carried: string | null): string | DomainError {
  const known = state.artifacts.provider_reference;
  if (known !== null && carried !== null && carried !== known) {
    return refreshFailed(state.reserved.transaction_id, 'The provider answered about another charge.');
  }
  if (known === null) {
    return refuse('reconciliation_required', 'There is no external id to query; reconcile first.', {
      transaction_id: state.reserved.transaction_id,
    });
  }
  return known;
}

function carriedReference(command: TransactionCommand): string | null {
  switch (command.kind) {
    case 'refresh_pending':
      return command.artifacts.provider_reference;
    case 'refresh_processing':
    case 'refresh_paid':
    case 'refresh_expired':
    case 'refresh_failed':
    case 'refresh_refunded':
    case 'refresh_boleto_pix':
    case 'refresh_duplicate_payment':
      return command.providerReference;
    default:
      // refresh_reference_found names the id to adopt, checked in its own cell (f).
      return null;
  }
}

/** Cells needing an external id (r): processing and unknown rows, refresh columns. */
function needsExternalId(status: TransactionStatus, command: TransactionCommand): boolean {
  return (
    (status === 'processing' || status === 'unknown') &&
    isRefresh(command) &&
    command.kind !== 'refresh_reference_found'
  );
}
