import { getCostCenter } from '../../../contract/operations/cost-centers.ts';
import { bind } from '../../bind.ts';
import { readCostCenter } from '../record.ts';

/** SPEC 4.12: one center of the key's tree, folded from its stream. No handler: nothing is decided. */
export const getRoute = bind(getCostCenter, async (call, ctx) => {
  const principal = call.apiKey();
  return {
    data: await readCostCenter(
      { store: ctx.store, registry: ctx.events },
      principal.tenantId,
      call.params.id,
    ),
  };
});
