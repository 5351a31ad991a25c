import { tenantEvents } from '../aggregates/tenant.ts';
import { tenantTypeEvents } from '../aggregates/tenant-type.ts';
import { decodedProjection } from './decoded-projection.ts';

/**
 * The tenant registry read model (`tenant_types`, `tenants`), inline because authentication reads it on
 * every request: a suspension blocks the tenant's and its descendants' keys on the very next request
 * (SPEC 5.5). `ancestor_ids` is copied from Tenant.Created (root first, self last), which the decider built
 * from the parent's; it never changes afterwards, so a subtree is `ancestor_ids @> {id}`.
 */
export const tenantsProjection = decodedProjection({
  name: 'tenants',
  definitions: [...tenantTypeEvents, ...tenantEvents],
  eventTypes: ['TenantType.Created', 'Tenant.Created', 'Tenant.Suspended', 'Tenant.Reactivated'],
  // Other read models keep tenant ids without a foreign key (migration 0003), so these tables rebuild alone.
  tables: ['tenants', 'tenant_types'],

  async apply(event, at, trx) {
    switch (event.type) {
      case 'TenantType.Created': {
        const d = event.data;
        await trx
          .insertInto('tenant_types')
          .values({ id: d.type_id, name: d.name, allows_children: d.allows_children, created_at: at })
          .execute();
        return;
      }
      case 'Tenant.Created': {
        const d = event.data;
        await trx
          .insertInto('tenants')
          .values({
            id: d.tenant_id,
            name: d.name,
            type_id: d.type_id,
            parent_id: d.parent_id,
            ancestor_ids: d.ancestor_ids,
            status: 'active',
            created_at: at,
            updated_at: at,
          })
          .execute();
        return;
      }
      case 'Tenant.Suspended':
      case 'Tenant.Reactivated': {
        await trx
          .updateTable('tenants')
          .set({
            status: event.type === 'Tenant.Suspended' ? 'suspended' : 'active',
            updated_at: at,
          })
          .where('id', '=', event.data.tenant_id)
          .execute();
        return;
      }
    }
  },
});
