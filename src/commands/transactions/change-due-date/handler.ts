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
    // One change at a time: a change awaiting the provider's confirmation is settled before another is sent.
    if (state.pendingDueDate !== null && state.pendingDueDate !== input.dueDate) {
      throw new DomainError(
        'conflict',
        `A change to ${state.pendingDueDate} awaits the provider's confirmation; repeat it or wait.`,
        { transaction_id: state.reserved.transaction_id },
      );
    }
  };
  return idempotentChange(ctx, input, metadata, precheck, async (state, rerun) => {
    if (state.status === 'pending' && state.reserved.boleto !== null) dryRun(state);
    return dueDateAttempt(adapterContext(ctx), state, input.dueDate, { queryFirst: rerun });
  });
}
