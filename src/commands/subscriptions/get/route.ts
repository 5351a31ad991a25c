import { getSubscription } from '../../../contract/operations/subscriptions.ts';
import { bind } from '../../bind.ts';
import { readableSubscription } from '../readable.ts';
import { toSubscriptionView } from '../view.ts';

/** SPEC 4.10: one subscription of the key's tree and mode, folded from its stream. */
export const getRoute = bind(getSubscription, async (call, ctx) => {
  const folded = await readableSubscription(ctx, call.apiKey(), call.params.id);
  return { data: await toSubscriptionView(ctx, folded) };
});
