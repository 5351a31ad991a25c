import { DomainError } from '../../../aggregates/decider.ts';
import { type TransactionFacts, transaction } from '../../../aggregates/transaction.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import {
  adapterContext,
  type ChangeContext,
  type ChangeInput,
  type ChangeOutcome,
  idempotentChange,
} from '../shared/idempotent-change.ts';
import { dueDateAttempt } from '../shared/provider-changes.ts';

/** `PATCH /v1/transactions/{id}/boleto`: a new due date for an open boleto (SPEC 4.8). */
export async function changeBoletoDueDate(
  ctx: ChangeContext,
  input: ChangeInput & { dueDate: string },
  metadata: EventMetadata,
): Promise<ChangeOutcome> {
  const dryRun = (state: TransactionFacts) => {
    // The decider's own checks (open boleto, date window), with the current deadline standing in.
    const decision = transaction.decide(
      { kind: 'change_due_date', dueDate: input.dueDate, expiresAt: state.artifacts.expires_at },
      state,
      { now: ctx.deps.now() },
    );
    if (decision instanceof DomainError) throw decision;
  };
  const precheck = (state: TransactionFacts) => {
    dryRun(state);
    // One change at a time (issue 22): one in flight or awaiting confirmation is settled before another.
    if (state.pendingDueDate !== null && state.pendingDueDate !== input.dueDate) {
      throw new DomainError(
        'change_in_progress',
        `A change of the due date to ${state.pendingDueDate} is already in progress; read the charge or wait.`,
        { transaction_id: state.reserved.transaction_id },
      );
    }
  };
  return idempotentChange(ctx, input, metadata, precheck, async (state, reserve) => {
    if (state.status === 'pending' && state.reserved.boleto !== null) dryRun(state);
    return dueDateAttempt(adapterContext(ctx), state, input.dueDate, reserve);
  });
}
