import { listTenantTypes } from '../../../contract/operations/tenants.ts';
import { bind } from '../../bind.ts';
import { listPage } from '../../page.ts';

/** Tenant types hold no tenant data: every panel role lists them all. No handler: nothing is decided. */
export const listTypesRoute = bind(listTenantTypes, async (call, ctx) => {
  const { limit, offset } = call.query;
  const query = ctx.db.selectFrom('tenant_types').select(['id', 'name', 'allows_children']);
  return listPage(query, { limit, offset }, 'asc');
});
