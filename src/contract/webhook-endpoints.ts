import { z } from 'zod';
import { WEBHOOK_MODES, WEBHOOK_URL_MAX_LENGTH } from '../aggregates/webhook-endpoint.ts';
import { pageQuery } from './envelopes.ts';
import { normalizedUrl } from './url-normal-form.ts';

/**
 * The HTTP contract of webhook endpoints (SPEC 6): the views and the request schemas of their routes.
 * Shared by the routes and the SDK (issue 15 item 3) so that neither can drift from the other; pure (zod
 * only), because the SDK bundles it.
 */

/** Issue 23 item 2.9: stored in its normal form (url-normal-form.ts); a URL that does not round-trip is 422. */
export const endpointUrl = normalizedUrl(WEBHOOK_URL_MAX_LENGTH).meta({
  description:
    'https only, at most 2048 characters, no credentials; private, loopback, link-local and cloud metadata addresses are refused (422 validation_error, param url). Written as a URL parser writes it (scheme and host may be in any case; `https://example.com` is stored as `https://example.com/`); anything the parser would read differently from how it is written (a backslash, a missing or empty host, a default or zero port, spaces) is refused with 422.',
});

export const createEndpointBody = z.strictObject({
  tenant_id: z.string().min(1).max(64),
  url: endpointUrl,
  mode: z.enum(WEBHOOK_MODES).meta({ description: 'Receives the events of this mode only.' }),
  enabled: z.boolean().default(true),
});

export const updateEndpointBody = z
  .strictObject({ url: endpointUrl.optional(), enabled: z.boolean().optional() })
  .refine((b) => b.url !== undefined || b.enabled !== undefined, { message: 'send url and/or enabled' });

export const endpointDto = z
  .object({
    id: z.string(),
    tenant_id: z.string(),
    url: z.string(),
    mode: z.enum(WEBHOOK_MODES),
    enabled: z.boolean(),
    disabled_reason: z.enum(['gone', 'panel']).nullable().meta({
      description: '`panel`: disabled by PATCH; `gone`: the receiver answered 410 Gone; null while enabled.',
    }),
    previous_secret_expires_at: z.iso.datetime().nullable().meta({
      description: 'Until when the rotated-out secret still signs deliveries; null when none is valid.',
    }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({
    id: 'WebhookEndpoint',
    description: 'A registered webhook destination. The signing secret is never part of it.',
  });

export const createdDto = endpointDto
  .extend({
    secret: z.string().optional().meta({
      description:
        'The signing secret (`whsec_` + base64): present only in the answer that registered the endpoint; GET .../secret shows it later.',
    }),
  })
  .meta({ id: 'CreatedWebhookEndpoint' });

export const secretsDto = z
  .object({
    secret: z.string(),
    previous_secret: z.string().nullable(),
    previous_expires_at: z.iso.datetime().nullable(),
  })
  .meta({
    id: 'WebhookEndpointSecrets',
    description:
      'Deliveries are signed with `secret`, and also with `previous_secret` until `previous_expires_at` (24 hours after a rotation).',
  });

export const endpointListQuery = pageQuery.extend({
  tenant_id: z.string().min(1).max(64).optional(),
  mode: z.enum(WEBHOOK_MODES).optional(),
});
