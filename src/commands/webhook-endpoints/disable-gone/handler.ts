import { DomainError } from '../../../aggregates/decider.ts';
import { webhookEndpoint } from '../../../aggregates/webhook-endpoint.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import { webhookEndpointStream } from '../endpoint.ts';

/**
 * For the delivery worker (src/workers/webhook-delivery.ts triggers it): the receiver answered 410 Gone, so
 * the endpoint stops receiving deliveries (`WebhookEndpoint.Disabled` with reason `gone`; the panel can
 * enable it again with PATCH). Never throws for a missing or deleted endpoint: it answers what happened
 * instead.
 */
export async function disableGoneWebhookEndpoint(
  deps: Pick<CommandDeps, 'store' | 'registry' | 'now' | 'newEventId'>,
  endpointId: string,
  metadata: EventMetadata,
): Promise<'disabled' | 'already_disabled' | 'not_found'> {
  try {
    const r = await handleCommand(
      deps,
      webhookEndpoint,
      webhookEndpointStream(endpointId),
      { kind: 'disable_gone' },
      { metadata, retryOnConflict: true },
    );
    return r.events.length > 0 ? 'disabled' : 'already_disabled';
  } catch (error) {
    if (error instanceof DomainError && error.code === 'not_found') return 'not_found';
    throw error;
  }
}
