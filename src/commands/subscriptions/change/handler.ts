import { type Decider, isDomainError } from '../../../aggregates/decider.ts';
import {
  type SubscriptionCommand,
  type SubscriptionEvent,
  type SubscriptionState,
  subscription,
} from '../../../aggregates/subscription.ts';
import type { PatchSubscriptionBody } from '../../../contract/subscriptions.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { handleCommand } from '../../command-handler.ts';
import type { AppContext } from '../../context.ts';
import { resolveCostCenter } from '../../cost-centers/resolve.ts';
import { type ApiKeyPrincipal, requireScopes } from '../../principal.ts';
import { requireOwnTenant } from '../../tenancy.ts';
import { automaticAvailable } from '../automatic/authorization.ts';
import { readableSubscription } from '../readable.ts';
import { type FoldedSubscription, foldSubscription, subscriptionStream } from '../record.ts';
import { SUBSCRIPTION_METHOD_SCOPE } from '../scope.ts';

/** The commands of a PATCH, decided one after the other on the same state: all appended, or none. */
const inSequence: Decider<readonly SubscriptionCommand[], SubscriptionEvent, SubscriptionState> = {
  initialState: subscription.initialState,
  evolve: subscription.evolve,
  decide(commands, state, ctx) {
    const events: SubscriptionEvent[] = [];
    let current = state;
    for (const command of commands) {
      const decided = subscription.decide(command, current, ctx);
      if (isDomainError(decided)) return decided;
      for (const e of decided) current = subscription.evolve(current, e);
      events.push(...decided);
    }
    return events;
  },
};

const STATUS_COMMAND = {
  paused: { kind: 'pause' },
  active: { kind: 'resume' },
  cancelled: { kind: 'cancel' },
} as const;

/**
 * `PATCH /v1/subscriptions/{id}` (SPEC 3.3, 4.10, 5.5): read as the key may (404 otherwise), then the method's
 * write scope (403 insufficient_scope), the own tenant only (a descendant's: 403 forbidden), the cost center
 * (422 invalid_cost_center; null removes it); the subscription's decider decides the rest (409
 * subscription_cancelled). Status and cost center are one append, so a refused half changes nothing. A value
 * already set is a no-op (200), which is why the operation needs no Idempotency-Key.
 */
export async function changeSubscription(
  ctx: Pick<AppContext, 'store' | 'events' | 'now'>,
  principal: ApiKeyPrincipal,
  subscriptionId: string,
  body: PatchSubscriptionBody,
  metadata: EventMetadata,
): Promise<FoldedSubscription> {
  const folded = await readableSubscription(ctx, principal, subscriptionId);
  const created = folded.state.created;
  requireScopes(principal, [SUBSCRIPTION_METHOD_SCOPE[created.method]]);
  requireOwnTenant(
    principal.tenantId,
    created.tenant_id,
    "A descendant's subscription is changed with its own key.",
  );
  if (body.cost_center_id) await resolveCostCenter(ctx, principal.tenantId, body.cost_center_id);
  const commands: SubscriptionCommand[] = [];
  if (body.status === 'active') {
    const available =
      created.method !== 'pix_automatic' || (await automaticAvailable(ctx, created.authorization_id));
    commands.push({ kind: 'resume', automaticAvailable: available });
  } else if (body.status !== undefined) {
    commands.push(STATUS_COMMAND[body.status]);
  }
  if (body.cost_center_id !== undefined) {
    commands.push({ kind: 'change_cost_center', costCenterId: body.cost_center_id });
  }
  const deps = { store: ctx.store, registry: ctx.events, now: () => ctx.now() };
  await handleCommand(deps, inSequence, subscriptionStream(created.subscription_id), commands, {
    metadata,
    retryOnConflict: true,
  });
  const after = await foldSubscription(ctx, created.subscription_id);
  if (!after) throw new Error(`subscription ${created.subscription_id} missing after its change`);
  return after;
}
