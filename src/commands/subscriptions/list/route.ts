import { listSubscriptions } from '../../../contract/operations/subscriptions.ts';
import { bind } from '../../bind.ts';
import { page } from '../../page.ts';
import { keyListRoot, tenantInSubtreeSql } from '../../tenancy.ts';
import { subscriptionViews } from '../view.ts';

/**
 * SPEC 4.10 with 4.3's rules: the key's mode only; its tenant, or a descendant named by `tenant_id`, and with
 * `include_descendants=true` the subtree; `status` filters; newest first. From the read model.
 */
export const listRoute = bind(listSubscriptions, async (call, ctx) => {
  const principal = call.apiKey();
  const { limit, offset, status, tenant_id, include_descendants } = call.query;
  const root = await keyListRoot({ store: ctx.store, registry: ctx.events }, principal.tenantId, tenant_id);
  const rows = await ctx.db
    .selectFrom('subscriptions')
    .selectAll()
    .where('livemode', '=', principal.livemode)
    .$if(!include_descendants, (q) => q.where('tenant_id', '=', root))
    .$if(include_descendants, (q) => q.where(tenantInSubtreeSql(root, 'tenant_id')))
    .$if(status !== undefined, (q) => q.where('status', '=', status ?? 'active'))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return page(await subscriptionViews(ctx, rows), { limit, offset });
});
