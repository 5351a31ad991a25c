import { webhookEndpoint } from '../../../aggregates/webhook-endpoint.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { generateWebhookSecret } from '../../../webhooks/signing.ts';
import { handleCommand } from '../../command-handler.ts';
import {
  mustLoad,
  type WebhookEndpointDeps,
  type WebhookEndpointView,
  webhookEndpointStream,
} from '../endpoint.ts';
import { requireWebhookSecretsKey, sealWebhookSecret } from '../secrets.ts';

/**
 * A new secret; the current one becomes the previous secret, valid 24 hours from now (a second rotation
 * within the window drops the older one). Not retried on a concurrent append: two rotations racing must not
 * both succeed silently with one secret lost.
 */
export async function rotateWebhookSecret(
  deps: WebhookEndpointDeps,
  endpointId: string,
  metadata: EventMetadata,
): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
  const key = await requireWebhookSecretsKey(deps.config);
  const secret = generateWebhookSecret();
  await handleCommand(
    deps,
    webhookEndpoint,
    webhookEndpointStream(endpointId),
    { kind: 'rotate_secret', secretSealed: sealWebhookSecret(key, endpointId, secret) },
    { metadata },
  );
  return { endpoint: await mustLoad(deps, endpointId), secret };
}
