import { listPixAutomaticAuthorizations } from '../../../../contract/operations/pix-automatic.ts';
import { bind } from '../../../bind.ts';
import { page } from '../../../page.ts';
import { keyListRoot, tenantInSubtreeSql } from '../../../tenancy.ts';
import { loadAuthorization } from '../load.ts';
import { toAuthorizationView } from '../view.ts';

/**
 * SPEC 4.11 with 4.3's rules: the key's mode only; its tenant, or a descendant named by `tenant_id`, and with
 * `include_descendants=true` the subtree; newest first. The page's ids come from the read model, each answer
 * from its stream (the same view as a GET).
 */
export const listRoute = bind(listPixAutomaticAuthorizations, async (call, ctx) => {
  const principal = call.apiKey();
  const { limit, offset, tenant_id, include_descendants } = call.query;
  const root = await keyListRoot({ store: ctx.store, registry: ctx.events }, principal.tenantId, tenant_id);
  const rows = await ctx.db
    .selectFrom('pix_automatic_authorizations')
    .select('id')
    .where('livemode', '=', principal.livemode)
    .$if(!include_descendants, (q) => q.where('tenant_id', '=', root))
    .$if(include_descendants, (q) => q.where(tenantInSubtreeSql(root, 'tenant_id')))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  const loaded = await Promise.all(rows.map((r) => loadAuthorization(ctx, r.id)));
  return page(
    loaded.flatMap((l) => (l ? [toAuthorizationView(l)] : [])),
    { limit, offset },
  );
});
