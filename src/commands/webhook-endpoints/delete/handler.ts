import { webhookEndpoint } from '../../../aggregates/webhook-endpoint.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { handleCommand } from '../../command-handler.ts';
import { type WebhookEndpointDeps, webhookEndpointStream } from '../endpoint.ts';

/** `DELETE`: final; every later command on the endpoint is 404 not_found. */
export async function deleteWebhookEndpoint(
  deps: WebhookEndpointDeps,
  endpointId: string,
  metadata: EventMetadata,
): Promise<void> {
  await handleCommand(
    deps,
    webhookEndpoint,
    webhookEndpointStream(endpointId),
    { kind: 'delete' },
    { metadata, retryOnConflict: true },
  );
}
