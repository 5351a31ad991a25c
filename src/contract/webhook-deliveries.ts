import { z } from 'zod';
import { pageQuery } from './envelopes.ts';

/**
 * The HTTP contract of webhook deliveries (SPEC 6): the views and the request schemas of their routes.
 * Shared by the routes and the SDK (issue 15 item 3) so that neither can drift from the other; pure (zod
 * only), because the SDK bundles it.
 */

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const;

export const deliveryDto = z
  .object({
    id: z.string(),
    message_id: z.string().meta({ description: 'The `webhook-id` header: the same on every attempt.' }),
    type: z.enum(['transaction.created', 'transaction.updated']),
    tenant_id: z.string(),
    transaction_id: z.string(),
    sequence: z.number().int(),
    destination: z.enum(['endpoint', 'callback']),
    endpoint_id: z.string().nullable(),
    url: z.string().nullable().meta({ description: "The callback_url, or the endpoint's current url." }),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    next_attempt_at: z.string().nullable().meta({ description: 'Set while pending.' }),
    last_attempt_at: z.string().nullable(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable().meta({
      description:
        'A short text (`timeout`, `HTTP 500`, `connection refused`); never the response body. A destination refused before sending (not a public address, or its name not found) is always `destination not allowed or unreachable`.',
    }),
    delivered_at: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({
    id: 'WebhookDelivery',
    description:
      "One webhook event sent to one destination: a registered endpoint or a charge's callback_url.",
  });

export const attemptDto = z.object({
  attempt: z.number().int(),
  started_at: z.string(),
  duration_ms: z.number().int(),
  outcome: z.enum(['delivered', 'failed', 'gone', 'refused']).meta({
    description: '`refused`: the destination was not allowed or could not be resolved; nothing was sent.',
  }),
  status_code: z.number().int().nullable(),
  error: z.string().nullable().meta({
    description:
      'A short text (`timeout`, `HTTP 500`, `connection refused`); never the response body. A destination refused before sending (not a public address, or its name not found) is always `destination not allowed or unreachable`.',
  }),
});

export const deliveryListQuery = pageQuery.extend({
  tenant_id: z.string().min(1).max(64).optional(),
  endpoint_id: z.string().min(1).max(64).optional(),
  transaction_id: z.string().min(1).max(64).optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
});

export const callbackSecretQuery = z.strictObject({
  tenant_id: z.string().min(1).max(64),
  mode: z.enum(['live', 'test']),
});

export const callbackSecretView = z.object({
  tenant_id: z.string(),
  mode: z.enum(['live', 'test']),
  secret: z.string(),
});
