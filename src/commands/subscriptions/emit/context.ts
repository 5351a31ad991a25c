import type { OpenedSubscription } from '../../../aggregates/subscription.ts';
import type { CycleIdentity } from '../../../aggregates/subscription-cycle.ts';
import { newId } from '../../../ids.ts';
import type { CheckoutContext } from '../../checkouts/create/handler.ts';
import type { ChargeContext } from '../../transactions/create/handler.ts';

/**
 * What a cycle's emission uses (SPEC 4.10): the charge and checkout commands' context, whose `now` is the
 * scheduler's time for this subscription (the system clock, or its test clock's frozen time).
 */
export type EmitContext = ChargeContext & CheckoutContext;

/** The cycle being issued and the subscription it belongs to (folded from its stream). */
export interface CycleToIssue {
  readonly subscription: OpenedSubscription;
  readonly cycle: number;
  readonly dueDate: string;
}

/** SPEC 4.10: a cycle's charge is asked for under one key per subscription and due date, so it exists once. */
export const cycleIdempotencyKey = (subscriptionId: string, dueDate: string) =>
  `cycle.${subscriptionId}.${dueDate}`;

/** SPEC 4.10: the reference of a cycle's charge, `sub_<subscription_id>:<YYYY-MM-DD>`. */
export const cycleReference = (subscriptionId: string, dueDate: string) => `sub_${subscriptionId}:${dueDate}`;

/** The route a cycle's charge is hashed under (part of its idempotency; never an HTTP route). */
export const CYCLE_ROUTE = 'scheduler:/subscriptions/cycles';

/** The charge body every method shares: the subscription's payer, description, callback and current center. */
export function cycleChargeBody(c: CycleToIssue) {
  const s = c.subscription;
  return {
    amount: s.created.amount,
    reference: cycleReference(s.created.subscription_id, c.dueDate),
    description: s.created.description,
    customer: s.created.customer,
    ...(s.created.callback_url !== null ? { callback_url: s.created.callback_url } : {}),
    // SPEC 4.10: each new cycle inherits the center the subscription has now.
    ...(s.costCenterId !== null ? { cost_center_id: s.costCenterId } : {}),
  };
}

/** A new cycle record's identity (SPEC 2.5): a fresh `scy_` id; the stream's first append keeps the first one. */
export function cycleIdentity(c: CycleToIssue): CycleIdentity {
  const s = c.subscription.created;
  return {
    cycle_id: newId('scy'),
    subscription_id: s.subscription_id,
    tenant_id: s.tenant_id,
    livemode: s.livemode,
    method: s.method,
    cycle: c.cycle,
    due_date: c.dueDate,
  };
}
