import { listTenantTypes } from '../../../contract/operations/tenants.ts';
import { bind } from '../../bind.ts';
import { page } from '../../page.ts';

/** Tenant types hold no tenant data: every panel role lists them all. No handler: nothing is decided. */
export const listTypesRoute = bind(listTenantTypes, async (call, ctx) => {
  const { limit, offset } = call.query;
  const rows = await ctx.db
    .selectFrom('tenant_types')
    .select(['id', 'name', 'allows_children'])
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute();
  return page(rows, { limit, offset });
});
