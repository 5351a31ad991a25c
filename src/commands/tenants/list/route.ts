import { listTenants } from '../../../contract/operations/tenants.ts';
import { bind } from '../../bind.ts';
import { listPage } from '../../page.ts';
import { tenantRowInSubtreeSql, treeRoot } from '../../tenancy.ts';
import { toTenantDto } from '../tenant-dto.ts';

/** All tenants for a super_admin, the caller's own tree otherwise (SPEC 5.7). No handler: nothing is decided. */
export const listRoute = bind(listTenants, async (call, ctx) => {
  const { limit, offset, status } = call.query;
  const root = treeRoot(call.session());
  const query = ctx.db
    .selectFrom('tenants')
    .select(['id', 'name', 'type_id', 'parent_id', 'status'])
    .$if(root !== undefined, (q) => q.where(tenantRowInSubtreeSql(root as string)))
    .$if(status !== undefined, (q) => q.where('status', '=', status ?? 'active'));
  return listPage(query, { limit, offset }, 'asc', toTenantDto);
});
