import { listCostCenters } from '../../../contract/operations/cost-centers.ts';
import { bind } from '../../bind.ts';
import { listPage } from '../../page.ts';
import { keyListRoot, tenantInSubtreeSql } from '../../tenancy.ts';
import type { CostCenterRecord } from '../record.ts';

/** SPEC 4.12: centers of the key's tree from the read model, oldest first. No handler: nothing is decided. */
export const listRoute = bind(listCostCenters, async (call, ctx) => {
  const principal = call.apiKey();
  const { limit, offset, active, tenant_id, include_descendants } = call.query;
  const root = await keyListRoot({ store: ctx.store, registry: ctx.events }, principal.tenantId, tenant_id);
  const query = ctx.db
    .selectFrom('cost_centers')
    .select(['id', 'tenant_id', 'name', 'active', 'created_at', 'updated_at'])
    .$if(!include_descendants, (q) => q.where('tenant_id', '=', root))
    .$if(include_descendants, (q) => q.where(tenantInSubtreeSql(root, 'tenant_id')))
    .$if(active !== undefined, (q) => q.where('active', '=', active ?? true));
  return listPage(
    query,
    { limit, offset },
    'asc',
    (r): CostCenterRecord => ({
      ...r,
      created_at: new Date(r.created_at).toISOString(),
      updated_at: new Date(r.updated_at).toISOString(),
    }),
  );
});
