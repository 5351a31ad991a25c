import { deleteWebhookEndpoint as deleteOperation } from '../../../contract/operations/webhook-endpoints.ts';
import { Answer, bind } from '../../bind.ts';
import { loadWebhookEndpointInTree, webhookEndpointDeps } from '../endpoint.ts';
import { deleteWebhookEndpoint } from './handler.ts';

/** Deletes an endpoint of the caller's tree: 204, and 404 afterwards. */
export const deleteRoute = bind(deleteOperation, async (call, ctx) => {
  await loadWebhookEndpointInTree(ctx, call.session(), call.params.id);
  await deleteWebhookEndpoint(webhookEndpointDeps(ctx), call.params.id, call.metadata());
  return new Answer(204, null);
});
