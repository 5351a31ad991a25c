import { listSubtenants } from '../../../contract/operations/subtenants.ts';
import { bind } from '../../bind.ts';
import { listPage } from '../../page.ts';
import { tenantRowInSubtreeSql } from '../../tenancy.ts';

/**
 * SPEC 4.13: the key's subtenants from the tenants read model, oldest first: its direct children, or with
 * `include_descendants` its whole subtree without itself. Tenants have no mode: test and production keys of
 * a tenant list the same subtenants, as they do cost centers (SPEC 4.12). No handler: nothing is decided.
 */
export const listRoute = bind(listSubtenants, async (call, ctx) => {
  const principal = call.apiKey();
  const { limit, offset, status, include_descendants } = call.query;
  const query = ctx.db
    .selectFrom('tenants')
    .select(['id', 'name', 'type_id', 'parent_id', 'status', 'created_at'])
    .$if(!include_descendants, (q) => q.where('parent_id', '=', principal.tenantId))
    .$if(include_descendants, (q) =>
      q.where(tenantRowInSubtreeSql(principal.tenantId)).where('id', '!=', principal.tenantId),
    )
    .$if(status !== undefined, (q) => q.where('status', '=', status ?? 'active'));
  return listPage(query, { limit, offset }, 'asc', (r) => ({
    id: r.id,
    name: r.name,
    type_id: r.type_id,
    parent_id: r.parent_id ?? '',
    status: r.status,
    created_at: new Date(r.created_at).toISOString(),
  }));
});
