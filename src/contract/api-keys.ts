import { z } from 'zod';
import { SCOPES } from '../aggregates/access.ts';
import { pageQuery } from './envelopes.ts';

/**
 * The HTTP contract of API keys (SPEC 2.7, 5.2 to 5.4): the views and the request schemas of their routes.
 * Shared by the routes and the SDK (issue 15 item 3) so that neither can drift from the other; pure (zod
 * only), because the SDK bundles it.
 */

export const createApiKeyBody = z.strictObject({
  tenant_id: z.string().min(1).max(64),
  mode: z.enum(['test', 'live']),
  scopes: z
    .array(z.enum(SCOPES))
    .min(1)
    .meta({ description: 'Explicit; nothing is added by default (boleto:write included).' }),
  name: z.string().min(1).max(200),
});

export const apiKeyView = z
  .object({
    id: z.string(),
    tenant_id: z.string(),
    name: z.string(),
    mode: z.enum(['test', 'live']),
    scopes: z.array(z.enum(SCOPES)),
    access_profile: z.enum(['standard', 'developer']),
    prefix: z.string().meta({ description: 'The first characters of the secret, to recognize the key.' }),
    status: z.enum(['issued', 'revoked']),
    created_at: z.iso.datetime(),
    revoked_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'ApiKey' });

export const issuedKey = apiKeyView
  .extend({
    key: z
      .string()
      .optional()
      .meta({ description: 'The secret: present only in the answer that created the key, never again.' }),
  })
  .meta({ id: 'IssuedApiKey' });

export const apiKeyListQuery = pageQuery.extend({ tenant_id: z.string().min(1).max(64).optional() });
