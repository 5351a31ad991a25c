import { rotateWebhookEndpointSecret } from '../../../contract/operations/webhook-endpoints.ts';
import { bind } from '../../bind.ts';
import { loadWebhookEndpointInTree, webhookEndpointDeps } from '../endpoint.ts';
import { revealWebhookSecrets } from '../secrets.ts';
import { rotateWebhookSecret } from './handler.ts';

/** Rotates the secret and answers both secrets, as GET .../secret would right after. */
export const rotateSecretRoute = bind(rotateWebhookEndpointSecret, async (call, ctx) => {
  const principal = call.session();
  await loadWebhookEndpointInTree(ctx, principal, call.params.id);
  await rotateWebhookSecret(webhookEndpointDeps(ctx), call.params.id, call.metadata());
  const rotated = await loadWebhookEndpointInTree(ctx, principal, call.params.id);
  return { data: await revealWebhookSecrets(ctx.config, rotated.facts, ctx.now()) };
});
