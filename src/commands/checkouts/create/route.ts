import { createCheckout as createCheckoutOperation } from '../../../contract/operations/checkouts.ts';
import { bind, createdOrReplayed } from '../../bind.ts';
import { toCheckoutView } from '../record.ts';
import { createCheckout } from './handler.ts';

/** SPEC 4.9: a checkout of the key's tenant, created (201) or replayed (200, `Idempotency-Replayed`). */
export const createRoute = bind(createCheckoutOperation, async (call, ctx) => {
  const { folded, created } = await createCheckout(
    ctx,
    call.apiKey(),
    { body: call.body, idempotencyKey: call.idempotencyKey(), route: createCheckoutOperation.path },
    call.metadata(),
  );
  return createdOrReplayed(created, { data: await toCheckoutView(ctx, folded) });
});
