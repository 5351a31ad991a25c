import { createPixAutomaticAuthorization } from '../../../../contract/operations/pix-automatic.ts';
import { Answer, bind, replayed } from '../../../bind.ts';
import { toAuthorizationView } from '../view.ts';
import { createAuthorization } from './handler.ts';

/**
 * SPEC 3.2, 4.11: 201 pending (copy_paste) or failed (confirmed refusal), 202 unknown; a replay 200 with
 * `Idempotency-Replayed: true` (202 while it is still processing: another request is making it).
 */
export const createRoute = bind(createPixAutomaticAuthorization, async (call, ctx) => {
  const { loaded, created } = await createAuthorization(
    ctx,
    call.apiKey(),
    { body: call.body, idempotencyKey: call.idempotencyKey(), route: createPixAutomaticAuthorization.path },
    call.metadata(),
  );
  const body = { data: toAuthorizationView(loaded) };
  const status = loaded.state.status;
  if (!created) return replayed(status === 'processing' ? 202 : 200, body);
  return new Answer(status === 'unknown' || status === 'processing' ? 202 : 201, body);
});
