import { createCostCenter as createCostCenterOperation } from '../../../contract/operations/cost-centers.ts';
import { Answer, bind, replayed } from '../../bind.ts';
import { createCostCenter } from './handler.ts';

/** SPEC 4.12: a center of the key's tenant, created (201) or replayed (200, `Idempotency-Replayed`). */
export const createRoute = bind(createCostCenterOperation, async (call, ctx) => {
  const principal = call.apiKey();
  const { record, created } = await createCostCenter(
    { store: ctx.store, registry: ctx.events, now: () => ctx.now() },
    {
      tenantId: principal.tenantId,
      name: call.body.name,
      // Optional here, but honoured (and checked) when sent.
      idempotencyKey: call.header('idempotency-key') === undefined ? undefined : call.idempotencyKey(),
      route: createCostCenterOperation.path,
    },
    call.metadata(),
  );
  if (!created) return replayed(200, { data: record });
  return new Answer(201, { data: record });
});
