import { costCenterEvents } from '../aggregates/cost-center.ts';
import { decodedProjection } from './decoded-projection.ts';

/**
 * The `cost_centers` read model (SPEC 4.12): lists with their filters, and the current name that reads of
 * charges show (`costCenterNames`). Inline, so a created or renamed center is listed at once.
 */
export const costCentersProjection = decodedProjection({
  name: 'cost_centers',
  definitions: costCenterEvents,
  tables: ['cost_centers'],

  async apply(event, at, trx) {
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
});
