import { deleteSubscription as deleteOperation } from '../../../contract/operations/subscriptions.ts';
import { Answer, bind } from '../../bind.ts';
import { deleteSubscription } from './handler.ts';

/** Deletes a subscription of the caller's tree: 204, and 404 afterwards. */
export const deleteRoute = bind(deleteOperation, async (call, ctx) => {
  await deleteSubscription(ctx, call.session(), call.params.id, call.metadata());
  return new Answer(204, null);
});
