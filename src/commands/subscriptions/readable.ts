import { ApiError } from '../../aggregates/errors.ts';
import type { AppContext } from '../context.ts';
import { keyReads } from '../tenancy.ts';
import { type FoldedSubscription, foldSubscription } from './record.ts';

/**
 * SPEC 4.10: a subscription the key may read: of its own tenant or a descendant's, in the key's mode. Anything
 * else (missing, deleted, another tree, the other mode) is `404 not_found`, so ids are never confirmed.
 */
export async function readableSubscription(
  ctx: Pick<AppContext, 'store' | 'events'>,
  principal: { tenantId: string; livemode: boolean },
  subscriptionId: string,
): Promise<FoldedSubscription> {
  const folded = await foldSubscription(ctx, subscriptionId);
  if (
    !folded ||
    !(await keyReads({ store: ctx.store, registry: ctx.events }, principal, folded.state.created))
  ) {
    throw new ApiError('not_found', 'The subscription does not exist.');
  }
  return folded;
}
