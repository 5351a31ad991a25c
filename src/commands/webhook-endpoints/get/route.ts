import { getWebhookEndpoint } from '../../../contract/operations/webhook-endpoints.ts';
import { bind } from '../../bind.ts';
import { loadWebhookEndpointInTree, webhookEndpointView } from '../endpoint.ts';

/** One endpoint of the caller's tree (never the secret). No handler: nothing is decided. */
export const getRoute = bind(getWebhookEndpoint, async (call, ctx) => {
  // Folded from its stream: always consistent, also while an async read model catches up.
  const loaded = await loadWebhookEndpointInTree(ctx, call.session(), call.params.id);
  return { data: webhookEndpointView(loaded, ctx.now()) };
});
