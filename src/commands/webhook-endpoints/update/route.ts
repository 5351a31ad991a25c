import { updateWebhookEndpoint as updateOperation } from '../../../contract/operations/webhook-endpoints.ts';
import { bind } from '../../bind.ts';
import { checkEndpointUrl } from '../destination.ts';
import { loadWebhookEndpointInTree, webhookEndpointDeps } from '../endpoint.ts';
import { updateWebhookEndpoint } from './handler.ts';

/** Changes url and/or enabled of an endpoint of the caller's tree. */
export const updateRoute = bind(updateOperation, async (call, ctx) => {
  await loadWebhookEndpointInTree(ctx, call.session(), call.params.id);
  if (call.body.url !== undefined) checkEndpointUrl(ctx.config, call.body.url);
  const endpoint = await updateWebhookEndpoint(
    webhookEndpointDeps(ctx),
    call.params.id,
    { url: call.body.url, enabled: call.body.enabled },
    call.metadata(),
  );
  return { data: endpoint };
});
