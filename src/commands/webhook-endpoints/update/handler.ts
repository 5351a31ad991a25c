import { webhookEndpoint } from '../../../aggregates/webhook-endpoint.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { handleCommand } from '../../command-handler.ts';
import {
  mustLoad,
  type WebhookEndpointDeps,
  type WebhookEndpointView,
  webhookEndpointStream,
} from '../endpoint.ts';

/** `PATCH`: url and/or enabled, in one event with the previous values. Nothing changed appends nothing. */
export async function updateWebhookEndpoint(
  deps: WebhookEndpointDeps,
  endpointId: string,
  input: { url?: string | undefined; enabled?: boolean | undefined },
  metadata: EventMetadata,
): Promise<WebhookEndpointView> {
  await handleCommand(
    deps,
    webhookEndpoint,
    webhookEndpointStream(endpointId),
    { kind: 'update', url: input.url, enabled: input.enabled },
    // The decision depends on the stream alone.
    { metadata, retryOnConflict: true },
  );
  return mustLoad(deps, endpointId);
}
