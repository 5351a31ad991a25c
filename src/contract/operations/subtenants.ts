import { issuedKey } from '../api-keys.ts';
import { creationResponses, listEnvelope } from '../envelopes.ts';
import { apiKey, SUBTENANT } from '../examples.ts';
import { operation } from '../operation.ts';
import {
  createdSubtenantView,
  createSubtenantBody,
  createSubtenantKeyBody,
  subtenantKeyParams,
  subtenantListQuery,
  subtenantView,
} from '../subtenants.ts';
import { COMPANY_EXAMPLE } from './subaccounts.ts';

/** Public subtenants (SPEC 4.13, 5.3, 5.4, 5.5; docs/decisions.md "Subtenants (issue 28 item 1)"). */
const SUBTENANTS_ROUTE = '/v1/subtenants';

export const createSubtenant = operation({
  method: 'POST',
  path: SUBTENANTS_ROUTE,
  access: { auth: 'api_key', scopes: ['subtenants:write'], notForDeveloperKeys: true, idempotencyKey: true },
  schema: {
    operationId: 'createSubtenant',
    summary: "Register a subtenant: a child tenant of the key's tenant",
    description:
      "Production keys only (a test key is 403 forbidden). Requires Idempotency-Key (scope: the key's tenant): a replay with the same key and body answers 200 with `Idempotency-Replayed: true` and the same subtenant as it is now; another body is 409 idempotency_conflict. The key's tenant type must allow children (409 conflict otherwise). Without `type_id` the subtenant gets the type of the key's tenant; an unknown `type_id` is 422 validation_error. Developer keys are refused (403 insufficient_scope).\n\nWith `subaccount` (the company data), the registration also tries to open the subtenant's subaccount at the marketplace provider its routing reaches (the first of boleto, Pix and card whose routing rule leads to a marketplace provider; the client never chooses the provider). The subtenant is created first; the answer's `subaccount` then says how the attempt went: `active`, `failed` (refused by the provider, with a sanitized message and the provider's code), `creating` or `unknown` (outcome not known yet; an administrator resolves it), or `not_attempted` (no marketplace route, or the provider cannot manage subaccounts now: nothing was sent). A refused or uncertain conversion never fails the registration. A replay answers the subaccount as it is now and never calls the provider again. An invalid `subaccount` is 422 validation_error and nothing is created. The bank account is sent to the provider only: never stored nor returned.",
    body: createSubtenantBody,
    response: creationResponses(createdSubtenantView, 'subtenant', 403, 409, 422),
  },
  examples: {
    request: {
      name: 'Padaria Central',
      subaccount: {
        name: 'Padaria Central Ltda',
        commercial_name: 'Padaria Central',
        document: '11222333000181',
        email: 'financeiro@padariacentral.example',
        ...COMPANY_EXAMPLE,
      },
    },
  },
});

export const listSubtenants = operation({
  method: 'GET',
  path: SUBTENANTS_ROUTE,
  access: { auth: 'api_key', scopes: ['subtenants:read'], notForDeveloperKeys: true },
  schema: {
    operationId: 'listSubtenants',
    summary: "List the subtenants of the key's tenant",
    description:
      'Oldest first. Direct children by default; `include_descendants=true` lists the whole subtree below the key tenant (never the key tenant itself). Test and production keys see the same subtenants. Developer keys are refused (403 insufficient_scope).',
    querystring: subtenantListQuery,
    response: { 200: listEnvelope(subtenantView) },
  },
});

export const createSubtenantKey = operation({
  method: 'POST',
  path: `${SUBTENANTS_ROUTE}/:id/api-keys`,
  access: {
    auth: 'api_key',
    scopes: ['subtenants:keys:write'],
    notForDeveloperKeys: true,
    idempotencyKey: true,
  },
  schema: {
    operationId: 'createSubtenantKey',
    summary: 'Issue an API key for a subtenant (the secret is shown only in this answer)',
    description:
      "The id must be a descendant of the key's tenant (otherwise 404; the key's own tenant is 403 forbidden: a key never issues a key for its own tenant). The new key has the caller's mode (test or production) and the standard access profile; every requested scope must be one the calling key has (403 insufficient_scope). A suspended subtenant is 403 tenant_suspended. Requires Idempotency-Key: a replay with the same key and body answers 200 with `Idempotency-Replayed: true` and the key without its secret; another body is 409 idempotency_conflict.",
    params: subtenantKeyParams,
    body: createSubtenantKeyBody,
    response: creationResponses(issuedKey, 'API key', 403, 404, 409, 422),
  },
  examples: {
    request: { name: 'ERP da padaria', scopes: ['pix:write', 'transactions:read'] },
    responses: {
      200: {
        data: {
          ...apiKey,
          tenant_id: SUBTENANT,
          name: 'ERP da padaria',
          scopes: ['pix:write', 'transactions:read'],
        },
      },
    },
  },
});
