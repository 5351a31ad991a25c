import { fold } from '../../aggregates/decider.ts';
import {
  type OpenedSubscription,
  type SubscriptionEvent,
  subscription,
} from '../../aggregates/subscription.ts';
import { type CycleEvent, type CycleState, subscriptionCycle } from '../../aggregates/subscription-cycle.ts';
import type { AppContext } from '../context.ts';

/** Subscriptions (SPEC 2.4, 4.10): their streams and folds. */

export const subscriptionStream = (subscriptionId: string) => `subscription-${subscriptionId}`;
export { cycleStream } from '../../aggregates/subscription-cycle.ts';

export const SUBSCRIPTION_ID = /^sub_[a-z0-9]{1,60}$/;

export interface FoldedSubscription {
  state: OpenedSubscription;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * A subscription folded from its stream (always consistent, unlike the read model); undefined when it does not
 * exist or was deleted. Ids not `sub_…` are never read.
 */
export async function foldSubscription(
  ctx: Pick<AppContext, 'store' | 'events'>,
  subscriptionId: string,
): Promise<FoldedSubscription | undefined> {
  if (!SUBSCRIPTION_ID.test(subscriptionId)) return undefined;
  const recorded = await ctx.store.read(subscriptionStream(subscriptionId));
  const first = recorded[0];
  const last = recorded.at(-1);
  if (!first || !last) return undefined;
  const state = fold(
    subscription,
    recorded.map((r) => ctx.events.decodeStored(r) as SubscriptionEvent),
  );
  if (state.status === 'none' || state.status === 'deleted') return undefined;
  return { state, version: last.version, createdAt: first.recordedAt, updatedAt: last.recordedAt };
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
