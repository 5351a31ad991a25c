import { z } from 'zod';
import type { Role } from '../../aggregates/access.ts';
import { apiKeyListQuery, apiKeyView, createApiKeyBody, issuedKey } from '../api-keys.ts';
import { dataEnvelope, errorEnvelope, listEnvelope } from '../envelopes.ts';
import { apiKey, TENANT } from '../examples.ts';
import { operation } from '../operation.ts';

/** SPEC 5.7 "Issue/revoke keys": super_admin global, tenant_admin own tree, viewer no. */
const KEY_ADMINS = ['super_admin', 'tenant_admin'] as const satisfies readonly Role[];

/** SPEC 4 common rules, 5.2-5.4: a key of a tenant of the caller's tree; the secret is shown once. */
export const createApiKey = operation({
  method: 'POST',
  path: '/admin/api-keys',
  access: { auth: 'session', roles: KEY_ADMINS, idempotencyKey: true },
  schema: {
    operationId: 'createApiKey',
    summary: 'Issue an API key (the secret is shown only in this answer)',
    description:
      'Requires Idempotency-Key. A replay with the same key and body answers 200 with `Idempotency-Replayed: true` and the record without the secret; another body is 409 idempotency_conflict. Scopes are explicit. The access profile is set by the server. A tenant outside your tree is 404.',
    body: createApiKeyBody,
    response: {
      200: dataEnvelope(issuedKey).meta({ description: 'Replay: the same key, without its secret' }),
      201: dataEnvelope(issuedKey).meta({ description: 'Issued; `key` is the secret, shown only now' }),
      404: errorEnvelope,
      409: errorEnvelope,
    },
  },
  examples: {
    request: {
      tenant_id: TENANT,
      mode: 'test',
      scopes: ['pix:write', 'boleto:write', 'transactions:read'],
      name: 'ERP da loja',
    },
    responses: { 200: { data: apiKey } },
  },
});

export const listApiKeys = operation({
  method: 'GET',
  path: '/admin/api-keys',
  access: { auth: 'session', roles: KEY_ADMINS },
  schema: {
    operationId: 'listApiKeys',
    summary: 'List API keys of your tree (never the secret)',
    querystring: apiKeyListQuery,
    response: { 200: listEnvelope(apiKeyView), 404: errorEnvelope },
  },
});

export const revokeApiKey = operation({
  method: 'DELETE',
  path: '/admin/api-keys/:id',
  access: { auth: 'session', roles: KEY_ADMINS },
  schema: {
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key (effective on its next request; revoking again changes nothing)',
    params: z.object({ id: z.string().min(1).max(64) }),
    response: {
      200: dataEnvelope(apiKeyView).meta({ description: 'The revoked key' }),
      404: errorEnvelope,
    },
  },
});
