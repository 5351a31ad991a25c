import { createSubaccount as createSubaccountOperation } from '../../../contract/operations/subaccounts.ts';
import { Answer, bind, replayed } from '../../bind.ts';
import { viewOfLoaded } from '../record.ts';
import { createSubaccount } from './handler.ts';

/** SPEC 4.14: 201 active or failed, 202 unknown (or still creating); a replay 200 (202 while creating). */
export const createRoute = bind(createSubaccountOperation, async (call, ctx) => {
  const { loaded, created } = await createSubaccount(
    ctx,
    { body: call.body, idempotencyKey: call.idempotencyKey(), route: createSubaccountOperation.path },
    call.metadata(),
  );
  const body = { data: await viewOfLoaded(ctx.config, loaded) };
  const status = loaded.state.status;
  if (!created) return replayed(status === 'creating' ? 202 : 200, body);
  return new Answer(status === 'unknown' || status === 'creating' ? 202 : 201, body);
});
