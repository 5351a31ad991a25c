import { type WebhookMode, webhookEndpoint } from '../../../aggregates/webhook-endpoint.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { newId } from '../../../ids.ts';
import { generateWebhookSecret } from '../../../webhooks/signing.ts';
import { handleCommand } from '../../command-handler.ts';
import {
  mustLoad,
  type WebhookEndpointDeps,
  type WebhookEndpointView,
  webhookEndpointStream,
} from '../endpoint.ts';
import { requireWebhookSecretsKey, sealWebhookSecret } from '../secrets.ts';

export interface RegisterWebhookEndpointInput {
  /** Chosen by the server unless given (the idempotency claim, tests). */
  endpointId?: string;
  tenantId: string;
  url: string;
  mode: WebhookMode;
  enabled: boolean;
}

/**
 * Registers an endpoint with a fresh secret. A repeat with the same facts (a completed idempotency claim) is
 * a no-op and returns no secret; `secret` is present only when this call registered the endpoint.
 */
export async function registerWebhookEndpoint(
  deps: WebhookEndpointDeps,
  input: RegisterWebhookEndpointInput,
  metadata: EventMetadata,
): Promise<{ endpoint: WebhookEndpointView; secret?: string; created: boolean }> {
  const key = await requireWebhookSecretsKey(deps.config);
  const endpointId = input.endpointId ?? newId('whe');
  const secret = generateWebhookSecret();
  const r = await handleCommand(
    deps,
    webhookEndpoint,
    webhookEndpointStream(endpointId),
    {
      kind: 'register',
      endpointId,
      tenantId: input.tenantId,
      url: input.url,
      mode: input.mode,
      enabled: input.enabled,
      secretSealed: sealWebhookSecret(key, endpointId, secret),
    },
    // A concurrent completion of the same claim re-decides into a no-op.
    { metadata, retryOnConflict: true },
  );
  const endpoint = await mustLoad(deps, endpointId);
  return r.events.length > 0 ? { endpoint, secret, created: true } : { endpoint, created: false };
}
