import { updateSubscription } from '../../../contract/operations/subscriptions.ts';
import { bind } from '../../bind.ts';
import { toSubscriptionView } from '../view.ts';
import { changeSubscription } from './handler.ts';

/** SPEC 4.10: pause, resume, cancel or reclassify a subscription of the key's own tenant. */
export const changeRoute = bind(updateSubscription, async (call, ctx) => {
  const folded = await changeSubscription(ctx, call.apiKey(), call.params.id, call.body, call.metadata());
  return { data: await toSubscriptionView(ctx, folded) };
});
