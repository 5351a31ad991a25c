import { isDomainError } from '../../../aggregates/decider.ts';
import { subscription } from '../../../aggregates/subscription.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { handleCommand } from '../../command-handler.ts';
import type { AppContext } from '../../context.ts';
import { subscriptionStream } from '../record.ts';

/** SPEC 4.11: "an approval found by refresh brings the first debit attempt forward to the next minute". */
const NEXT_MINUTE_MS = 60_000;

/**
 * The payer approved `authorizationId` at `now`: the subscription on it whose cycle is waiting for that
 * approval (its emission failed `automatic_not_approved`, next attempt in up to 15 minutes) is tried again a
 * minute from now. The subscription is found through the read model; one not visible there yet keeps its
 * 15-minute retry, which is only later, never wrong.
 */
export async function bringForwardAfterApproval(
  ctx: Pick<AppContext, 'store' | 'events' | 'db'>,
  authorizationId: string,
  now: Date,
  metadata: EventMetadata,
): Promise<void> {
  const waiting = await ctx.db
    .selectFrom('subscriptions')
    .select(['id', 'tenant_id', 'livemode', 'pending_cycle', 'pending_due_date'])
    .where('authorization_id', '=', authorizationId)
    .where('pending_cycle', 'is not', null)
    .execute();
  const nextAttemptAt = new Date(now.getTime() + NEXT_MINUTE_MS).toISOString();
  for (const row of waiting) {
    if (row.pending_cycle === null || row.pending_due_date === null) continue;
    try {
      await handleCommand(
        { store: ctx.store, registry: ctx.events, now: () => now },
        subscription,
        subscriptionStream(row.id),
        { kind: 'bring_forward', cycle: row.pending_cycle, dueDate: row.pending_due_date, nextAttemptAt },
        {
          metadata: { ...metadata, tenant_id: row.tenant_id, livemode: row.livemode },
          retryOnConflict: true,
        },
      );
    } catch (error) {
      // Deleted since the read model showed it (its row goes with the projection): nothing to bring forward,
      // and the approval the caller recorded must still be answered.
      if (!isDomainError(error) || error.code !== 'not_found') throw error;
    }
  }
}
