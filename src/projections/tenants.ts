import { sql } from 'kysely';
import { type TenantEvent, tenantEvents } from '../aggregates/tenant.ts';
import { type TenantTypeEvent, tenantTypeEvents } from '../aggregates/tenant-type.ts';
import { EventRegistry } from '../events/event-registry.ts';
import type { Projection } from '../events/projection.ts';

// Payloads are decoded (upcast and validated) before use, as deciders see them.
const registry = new EventRegistry([...tenantTypeEvents, ...tenantEvents]);

/**
 * The tenant registry read model (`tenant_types`, `tenants`), inline because authentication reads it on
 * every request: a suspension blocks the tenant's and its descendants' keys on the very next request
 * (SPEC 5.5). `ancestor_ids` is copied from Tenant.Created (root first, self last), which the decider built
 * from the parent's; it never changes afterwards, so a subtree is `ancestor_ids @> {id}`.
 * Timestamps are the events' recorded times, so a rebuild reproduces them.
 */
export const tenantsProjection: Projection = {
  name: 'tenants',
  eventTypes: ['TenantType.Created', 'Tenant.Created', 'Tenant.Suspended', 'Tenant.Reactivated'],

  async handle(recorded, trx) {
    const at = recorded.recordedAt;
    const event = registry.decode(recorded) as TenantTypeEvent | TenantEvent;
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

  async reset(trx) {
    // Other read models keep tenant ids without a foreign key (migration 0003), so this table rebuilds alone.
    await sql`truncate tenants, tenant_types`.execute(trx);
  },
};
