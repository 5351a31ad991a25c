import type { Decider } from '../../../aggregates/decider.ts';
import {
  type MarkUnknown,
  type TransactionCommand,
  type TransactionEvent,
  type TransactionState,
  transaction,
} from '../../../aggregates/transaction.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { diagnosticsFor } from '../../../providers/safe2pay/diagnostics.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import { foldStream } from '../../fold-stream.ts';
import { type RefreshContext, refreshAtProvider } from '../refresh/handler.ts';
import { type PayoutContext, settlePayout } from '../refund/payout.ts';
import { readDueDate, readRefund } from '../shared/provider-changes.ts';
import { transactionStream } from '../shared/stream.ts';

/**
 * Reconcile one charge (SPEC 3.1, 4.8; issue 13 items 7, 8, 9): what the reconciler does to each charge it
 * picked. Which charges, how many and when are the jobs' (./job.ts and ../settle-pending-changes/job.ts);
 * each decision here goes through the transaction decider, so several instances need no lock (the
 * append's expected version lets one decision through).
 */

/** The charge a worker picked from the read model: its id and the tenant and mode of its events. */
export interface PickedCharge {
  readonly id: string;
  readonly tenant_id: string;
  readonly livemode: boolean;
}

const metadataOf = (actor: string, row: PickedCharge): EventMetadata => ({
  actor,
  tenant_id: row.tenant_id,
  livemode: row.livemode,
});

interface Guarded {
  readonly inner: TransactionState;
  /** Events folded so far. */
  readonly events: number;
}

/**
 * The transaction decider, restricted to charges that have nothing but their reservation (one event).
 * `processing` is also reached by a boleto payment intent (`Transaction.PaymentProcessing`, after an
 * issued charge): that charge exists at the provider and must never be turned `unknown` by a timeout,
 * so for any longer stream the reconciler decides nothing. The decision itself is the transaction's.
 */
const untouchedReservation: Decider<MarkUnknown, TransactionEvent, Guarded> = {
  initialState: { inner: transaction.initialState, events: 0 },
  evolve: (state, event) => ({ inner: transaction.evolve(state.inner, event), events: state.events + 1 }),
  decide: (command, state, ctx) => (state.events === 1 ? transaction.decide(command, state.inner, ctx) : []),
};

/**
 * DESIGN.md "reserve -> call -> record outcome": a reservation left `processing` past the timeout becomes
 * `unknown` (`mark_unknown`), never a second provider call. Answers how many events were appended (0 or 1).
 */
export async function markUnknownIfStale(
  deps: CommandDeps,
  row: PickedCharge,
  timeoutSeconds: number,
  actor: string,
): Promise<number> {
  const { events } = await handleCommand(
    deps,
    untouchedReservation,
    transactionStream(row.id),
    { kind: 'mark_unknown', timeoutSeconds },
    {
      metadata: metadataOf(actor, row),
      // Safe: the decision depends only on the stream, and nothing external was done on it.
      retryOnConflict: true,
      maxAttempts: 3,
    },
  );
  return events.length;
}

/**
 * Issue 13 item 7: an external charge settled by the refresh's own query (../refresh/handler.ts): by its
 * external id, or for `unknown` without it by reference. `none`: the stream holds no charge.
 */
export async function settleAtProvider(
  ctx: RefreshContext,
  row: PickedCharge,
  actor: string,
): Promise<'applied' | 'unresolved' | 'none'> {
  const state = await foldStream(ctx.deps, transaction, transactionStream(row.id));
  if (state.status === 'none') return 'none';
  const outcome = await refreshAtProvider(ctx, state, metadataOf(actor, row));
  return outcome.kind === 'applied' ? 'applied' : 'unresolved';
}

/**
 * SPEC 4.8, issue 13 item 8, issue 22: a refund or due-date change left pending, settled by reading the charge
 * at its provider (../shared/provider-changes.ts), never by sending it again. A reservation that outlived any
 * provider call (`staleAfterSeconds`, a crash between the call and its record) is first recorded uncertain;
 * for a simulated charge, whose record is the simulator's truth, it is then closed as interrupted.
 * `open`: the provider could not tell yet, or the reservation is young; `none`: nothing was pending.
 */
export async function settlePendingChange(
  deps: CommandDeps,
  ctx: PayoutContext,
  row: PickedCharge,
  actor: string,
  staleAfterSeconds: number,
): Promise<'settled' | 'open' | 'none'> {
  const stream = transactionStream(row.id);
  const options = { metadata: metadataOf(actor, row), retryOnConflict: true, maxAttempts: 3 };
  let state = await foldStream(deps, transaction, stream);
  if (state.status === 'none') return 'none';
  // A refund awaiting a person is the panel's (../refund-queue/route.ts), not the reconciler's.
  const refund =
    state.status === 'paid' && state.refundStatus === 'pending' && state.refundRoute !== 'operator';
  const dueDate = state.status === 'pending' ? state.pendingDueDate : null;
  if (!refund && dueDate === null) return 'none';
  const interrupted = diagnosticsFor('interrupted', null, null);
  const closed = (kind: 'unconfirmed' | 'refused'): TransactionCommand =>
    dueDate === null
      ? { kind: `refund_${kind}`, diagnostics: interrupted }
      : { kind: `due_date_${kind}`, dueDate, diagnostics: interrupted };
  if (refund ? state.refundInFlight : state.dueDateInFlight) {
    const stale = { ...closed('unconfirmed'), staleAfterSeconds } as TransactionCommand;
    const recorded = await handleCommand(deps, transaction, stream, stale, options);
    if (recorded.events.length === 0 || recorded.state.status === 'none') return 'open';
    state = recorded.state;
  }
  let command: TransactionCommand | null;
  let settled: boolean;
  if (state.reserved.simulated) {
    [command, settled] = [closed('refused'), true];
  } else {
    const attempt = !refund
      ? await readDueDate(ctx, state)
      : state.refundRoute === 'payout'
        ? await settlePayout(ctx, state)
        : await readRefund(ctx, state);
    [command, settled] = [attempt.command, attempt.kind !== 'pending'];
  }
  if (command) await handleCommand(deps, transaction, stream, command, options);
  return settled ? 'settled' : 'open';
}
