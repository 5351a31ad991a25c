import { createSubscription as createOperation } from '../../../contract/operations/subscriptions.ts';
import { bind, createdOrReplayed } from '../../bind.ts';
import { toSubscriptionView } from '../view.ts';
import { createSubscription } from './handler.ts';

/** SPEC 4.10: a subscription of the key's tenant and mode, created (201) or replayed (200, `Idempotency-Replayed`). */
export const createRoute = bind(createOperation, async (call, ctx) => {
  const { folded, created } = await createSubscription(
    ctx,
    call.apiKey(),
    { body: call.body, idempotencyKey: call.idempotencyKey(), route: createOperation.path },
    call.metadata(),
  );
  return createdOrReplayed(created, { data: await toSubscriptionView(ctx, folded) });
});
