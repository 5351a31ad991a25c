import { createFeeVersion } from '../../../contract/operations/fee-schedules.ts';
import { Answer, bind } from '../../bind.ts';
import { addFeeVersion } from './handler.ts';

/** Issue 28 item 4: a fee version is added (201), or the same one already existed (200). */
export const createRoute = bind(createFeeVersion, async (call, ctx) => {
  const b = call.body;
  const { version, created } = await addFeeVersion(
    { store: ctx.store, registry: ctx.events, now: () => ctx.now() },
    {
      tenantId: b.tenant_id,
      method: b.method,
      percentBps: b.percent_bps,
      fixedAmount: b.fixed_amount,
      startsOn: b.starts_on,
    },
    call.metadata(),
  );
  return new Answer(created ? 201 : 200, { data: version });
});
