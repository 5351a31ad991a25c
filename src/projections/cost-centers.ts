import { sql } from 'kysely';
import { type CostCenterEvent, costCenterEvents } from '../aggregates/cost-center.ts';
import { EventRegistry } from '../events/event-registry.ts';
import type { Projection } from '../events/projection.ts';

// Payloads are decoded (upcast and validated) before use, as deciders see them.
const registry = new EventRegistry(costCenterEvents);

/**
 * The `cost_centers` read model (SPEC 4.12): lists with their filters, and the current name that reads of
 * charges show (`costCenterNames`). Inline, so a created or renamed center is listed at once. Timestamps are
 * the events' recorded times, so a rebuild reproduces them.
 */
export const costCentersProjection: Projection = {
  name: 'cost_centers',
  eventTypes: costCenterEvents.map((e) => e.type),

  async handle(recorded, trx) {
    const at = recorded.recordedAt;
    const event = registry.decode(recorded) as CostCenterEvent;
    switch (event.type) {
      case 'CostCenter.Created': {
        const d = event.data;
        await trx
          .insertInto('cost_centers')
          .values({
            id: d.cost_center_id,
            tenant_id: d.tenant_id,
            name: d.name,
            active: true,
            created_at: at,
            updated_at: at,
          })
          .execute();
        return;
      }
      case 'CostCenter.Renamed':
        await trx
          .updateTable('cost_centers')
          .set({ name: event.data.name, updated_at: at })
          .where('id', '=', event.data.cost_center_id)
          .execute();
        return;
      case 'CostCenter.Deactivated':
      case 'CostCenter.Reactivated':
        await trx
          .updateTable('cost_centers')
          .set({ active: event.type === 'CostCenter.Reactivated', updated_at: at })
          .where('id', '=', event.data.cost_center_id)
          .execute();
        return;
    }
  },

  async reset(trx) {
    await sql`truncate cost_centers`.execute(trx);
  },
};
