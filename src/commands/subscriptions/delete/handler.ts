import { ApiError } from '../../../aggregates/errors.ts';
import { subscription } from '../../../aggregates/subscription.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { handleCommand } from '../../command-handler.ts';
import type { AppContext } from '../../context.ts';
import type { SessionPrincipal } from '../../principal.ts';
import { isInTree } from '../../tenancy.ts';
import { foldSubscription, subscriptionStream } from '../record.ts';

/**
 * `DELETE /admin/subscriptions/{id}` (SPEC 3.3, 5.7): a subscription of the caller's tree (super_admin: any;
 * else 404) becomes `Subscription.Deleted`; the read models drop it and its cycles, later reads are 404. Its
 * charges stay; a Pix Automatic authorization is not revoked.
 */
export async function deleteSubscription(
  ctx: Pick<AppContext, 'store' | 'events' | 'now' | 'db'>,
  principal: SessionPrincipal,
  subscriptionId: string,
  metadata: EventMetadata,
): Promise<void> {
  const folded = await foldSubscription(ctx, subscriptionId);
  if (!folded || !(await isInTree(ctx.db, principal, folded.state.created.tenant_id))) {
    throw new ApiError('not_found', 'The subscription does not exist.');
  }
  await handleCommand(
    { store: ctx.store, registry: ctx.events, now: () => ctx.now() },
    subscription,
    subscriptionStream(folded.state.created.subscription_id),
    { kind: 'delete' },
    { metadata, retryOnConflict: true },
  );
}
