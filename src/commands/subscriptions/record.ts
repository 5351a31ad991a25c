import { fold } from '../../aggregates/decider.ts';
import { type OpenedSubscription, subscription } from '../../aggregates/subscription.ts';
import { type CycleEvent, type CycleState, subscriptionCycle } from '../../aggregates/subscription-cycle.ts';
import type { AppContext } from '../context.ts';
import { type FoldedStream, foldExisting } from '../fold-stream.ts';

/** Subscriptions (SPEC 2.4, 4.10): their streams and folds. */

export const subscriptionStream = (subscriptionId: string) => `subscription-${subscriptionId}`;
export { cycleStream } from '../../aggregates/subscription-cycle.ts';

export const SUBSCRIPTION_ID = /^sub_[a-z0-9]{1,60}$/;

export type FoldedSubscription = FoldedStream<OpenedSubscription>;

/**
 * A subscription folded from its stream (always consistent, unlike the read model); undefined when it does not
 * exist or was deleted. Ids not `sub_…` are never read.
 */
export async function foldSubscription(
  ctx: Pick<AppContext, 'store' | 'events'>,
  subscriptionId: string,
): Promise<FoldedSubscription | undefined> {
  if (!SUBSCRIPTION_ID.test(subscriptionId)) return undefined;
  const folded = await foldExisting(
    ctx.store,
    (r) => ctx.events.decodeStored(r),
    subscription,
    subscriptionStream(subscriptionId),
  );
  if (!folded) return undefined;
  const { state } = folded;
  return state.status === 'deleted' ? undefined : { ...folded, state };
}

/** A cycle folded from its stream (`cycle-<subscription>-<due_date>`). */
export async function foldCycle(
  ctx: Pick<AppContext, 'store' | 'events'>,
  stream: string,
): Promise<{ state: CycleState; version: number }> {
  const recorded = await ctx.store.read(stream);
  const state = fold(
    subscriptionCycle,
    recorded.map((r) => ctx.events.decodeStored(r) as CycleEvent),
  );
  return { state, version: recorded.at(-1)?.version ?? -1 };
}
