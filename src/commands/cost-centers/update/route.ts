import { updateCostCenter as updateCostCenterOperation } from '../../../contract/operations/cost-centers.ts';
import { bind } from '../../bind.ts';
import { updateCostCenter } from './handler.ts';

/** SPEC 4.12: rename or (de)activate a center of the key's own tenant. */
export const updateRoute = bind(updateCostCenterOperation, async (call, ctx) => {
  const principal = call.apiKey();
  const record = await updateCostCenter(
    { store: ctx.store, registry: ctx.events, now: () => ctx.now() },
    {
      costCenterId: call.params.id,
      keyTenantId: principal.tenantId,
      name: call.body.name,
      active: call.body.active,
    },
    call.metadata(),
  );
  return { data: record };
});
