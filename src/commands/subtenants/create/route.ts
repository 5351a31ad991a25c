import { createSubtenant as createSubtenantOperation } from '../../../contract/operations/subtenants.ts';
import { bind, createdOrReplayed } from '../../bind.ts';
import { refuseBodyTenant } from '../../principal.ts';
import { subtenantViewOf } from '../subtenant-view.ts';
import { createSubtenant } from './handler.ts';

/**
 * SPEC 4.13: a child of the key's tenant, created (201) or replayed (200, `Idempotency-Replayed`), with the
 * outcome of its subaccount conversion (null when none was asked).
 */
export const createRoute = bind(createSubtenantOperation, async (call, ctx) => {
  const principal = call.apiKey();
  refuseBodyTenant(call.body.tenant_id);
  const { record, created, subaccount } = await createSubtenant(
    ctx,
    {
      parentId: principal.tenantId,
      livemode: principal.livemode,
      name: call.body.name,
      typeId: call.body.type_id,
      idempotencyKey: call.idempotencyKey(),
      route: createSubtenantOperation.path,
      subaccount: call.body.subaccount,
    },
    call.metadata(),
  );
  return createdOrReplayed(created, { data: { ...(await subtenantViewOf(ctx, record)), subaccount } });
});
