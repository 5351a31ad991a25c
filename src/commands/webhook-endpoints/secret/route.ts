import { getWebhookEndpointSecret } from '../../../contract/operations/webhook-endpoints.ts';
import { bind } from '../../bind.ts';
import { loadWebhookEndpointInTree } from '../endpoint.ts';
import { revealWebhookSecrets } from '../secrets.ts';

/** The signing secret, and the previous one within 24 hours of a rotation. No handler: nothing is decided. */
export const secretRoute = bind(getWebhookEndpointSecret, async (call, ctx) => {
  const loaded = await loadWebhookEndpointInTree(ctx, call.session(), call.params.id);
  return { data: await revealWebhookSecrets(ctx.config, loaded.facts, ctx.now()) };
});
