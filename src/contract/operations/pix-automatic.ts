import { creationResponses, dataEnvelope, errorResponses, idParams, listEnvelope } from '../envelopes.ts';
import { AT, customer, LATER, TENANT } from '../examples.ts';
import { operation } from '../operation.ts';
import {
  authorizationListQuery,
  authorizationView,
  createAuthorizationBody,
  simulateAuthorizationBody,
} from '../pix-automatic.ts';

/**
 * Pix Automatic authorizations (SPEC 2.6, 3.2, 4.11, 5.3; docs/decisions.md "Pix Automatic (issue 27):
 * authorizations"). No webhook reports them (SPEC 6): integrators refresh.
 */
const AUTHORIZATIONS_ROUTE = '/v1/pix-automatic/authorizations';

const AUTHORIZATION_ID = 'pxa_01jd5d4h6k8n0q2s4u6w8y0a2c';
/** Examples are dated days ahead of when the document is built, like the subscriptions' (examples.ts). */
const firstDueDate = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
const pendingAuthorization = {
  id: AUTHORIZATION_ID,
  tenant_id: TENANT,
  livemode: false,
  simulated: true,
  environment: 'sandbox',
  status: 'pending',
  name: 'Plano mensal',
  description: 'Mensalidade do plano',
  amount: 4990,
  first_due_date: firstDueDate,
  interval_months: 1,
  customer_name: customer.name,
  customer_document: customer.document,
  copy_paste: `SIMULADOR-TESTE-NAO-PAGAVEL-${AUTHORIZATION_ID}`,
  provider_reference: `sim_${AUTHORIZATION_ID}`,
  approval_deadline: '2026-11-24T14:05:09.412Z',
  approved_at: null,
  provider_error_code: null,
  provider_error_message: null,
  provider_http_status: null,
  created_at: AT,
  updated_at: AT,
};
const approvedAuthorization = {
  ...pendingAuthorization,
  status: 'approved',
  approved_at: LATER,
  updated_at: LATER,
};
const unknownAuthorization = {
  ...pendingAuthorization,
  livemode: true,
  simulated: false,
  environment: 'production',
  status: 'unknown',
  copy_paste: null,
  provider_reference: null,
};
const cancelledAuthorization = { ...pendingAuthorization, status: 'cancelled', updated_at: LATER };

export const createPixAutomaticAuthorization = operation({
  method: 'POST',
  path: AUTHORIZATIONS_ROUTE,
  access: { auth: 'api_key', scopes: ['pix:write'], idempotencyKey: true },
  schema: {
    operationId: 'createPixAutomaticAuthorization',
    summary: 'Create a Pix Automatic authorization (the payer approves it in the bank app)',
    description:
      "Requires Idempotency-Key (scope: tenant + key, in the key's mode). A fixed amount, a calendar in months (1, 3, 6 or 12), the first due date at least 2 days ahead in Brasilia time and the complete payer, as in subscriptions; no immediate charge. Test keys: the simulator (`simulated: true`; copy_paste is a marker no bank accepts). Production keys: the tenant's Pix routing rule and the production release (403 live_payments_disabled / live_payment_out_of_scope, 503 payment_settings_unavailable; the scope's `reference` is the authorization's `name`); a provider that does not offer Pix Automatic is 422 provider_method_disabled, nothing stored, and so is a marketplace provider (Pix Automatic is not offered through a subaccount; its link checks, 422 subaccount_not_configured / subaccount_credentials_missing, come first). 201 `pending` with copy_paste (the payer has 24 hours to approve); 201 `failed` on a confirmed refusal, with provider_error_* fields; 202 `unknown` when unconfirmed (refresh it, do not create another for the same contract). Replay: 200 with `Idempotency-Replayed: true`, no provider call; another body under the key: 409 idempotency_conflict.",
    body: createAuthorizationBody,
    response: {
      ...creationResponses(authorizationView, 'authorization', 400, 401, 403, 409, 422, 429, 503),
      202: dataEnvelope(authorizationView).meta({
        description: 'Unconfirmed (`unknown`), or a replay finding it still `processing`',
      }),
    },
  },
  examples: {
    request: {
      name: 'Plano mensal',
      description: 'Mensalidade do plano',
      amount: 4990,
      first_due_date: firstDueDate,
      interval_months: 1,
      customer,
    },
    responses: {
      200: { data: pendingAuthorization },
      201: { data: pendingAuthorization },
      202: { data: unknownAuthorization },
    },
  },
});

export const listPixAutomaticAuthorizations = operation({
  method: 'GET',
  path: AUTHORIZATIONS_ROUTE,
  access: { auth: 'api_key', scopes: ['transactions:read'] },
  schema: {
    operationId: 'listPixAutomaticAuthorizations',
    summary: "List Pix Automatic authorizations of the key's tenant (and, on request, its descendants)",
    description:
      "Newest first, only the key's mode. `tenant_id` selects the filter root within the key's tree (outside: 404); `include_descendants=true` adds its subtree. Page with limit and offset as GET /v1/transactions.",
    querystring: authorizationListQuery,
    response: { 200: listEnvelope(authorizationView), ...errorResponses(401, 403, 404, 422, 429) },
  },
  examples: {
    responses: { 200: { data: [pendingAuthorization], meta: { limit: 50, offset: 0, count: 1 } } },
  },
});

export const getPixAutomaticAuthorization = operation({
  method: 'GET',
  path: `${AUTHORIZATIONS_ROUTE}/:id`,
  access: { auth: 'api_key', scopes: ['transactions:read'] },
  schema: {
    operationId: 'getPixAutomaticAuthorization',
    summary: "A Pix Automatic authorization of the key's tenant or of a descendant (local read)",
    description:
      "Reads the gateway's record only (refresh asks the provider). Outside the key's tree or of the other mode: 404 not_found.",
    params: idParams,
    response: { 200: dataEnvelope(authorizationView), ...errorResponses(401, 403, 404, 429) },
  },
  examples: { responses: { 200: { data: pendingAuthorization } } },
});

export const refreshPixAutomaticAuthorization = operation({
  method: 'POST',
  path: `${AUTHORIZATIONS_ROUTE}/:id/refresh`,
  access: { auth: 'api_key', scopes: ['pix:write'] },
  schema: {
    operationId: 'refreshPixAutomaticAuthorization',
    summary: 'Refresh a Pix Automatic authorization from its provider',
    description:
      "No body. There is no webhook for authorizations: poll this. Simulated (test keys): the gateway's record is the truth; only the 24-hour approval deadline applies (pending past it becomes expired). Otherwise the provider is queried: approved, expired, cancelled (the payer cancelled in the bank app) or failed (the payer refused) are stored; a report that would move a final authorization (or an approved one back) is 409 provider_status_conflict, state kept; a failed query is 502 provider_refresh_failed with its diagnostics, state kept. `unknown` or `processing` without provider_reference: 409 reconciliation_required. Production needs the production control (403, 503). Only the key's own tenant (a descendant's: 403 forbidden).",
    params: idParams,
    response: {
      200: dataEnvelope(authorizationView),
      ...errorResponses(401, 403, 404, 409, 429, 502, 503),
    },
  },
  examples: { responses: { 200: { data: approvedAuthorization } } },
});

export const simulatePixAutomaticAuthorization = operation({
  method: 'POST',
  path: `${AUTHORIZATIONS_ROUTE}/:id/simulate`,
  access: { auth: 'api_key', scopes: ['pix:write'] },
  schema: {
    operationId: 'simulatePixAutomaticAuthorization',
    summary: 'Simulate the payer on a test Pix Automatic authorization',
    description:
      "Test key only (a live key: 409 simulation_not_allowed). `approved` and `expired` from pending, `cancelled` from pending or approved; anything else 409 simulation_not_allowed. ENABLE_SIMULATOR off: 422 simulator_disabled. No provider call. Only the key's own tenant (a descendant's: 403 forbidden).",
    params: idParams,
    body: simulateAuthorizationBody,
    response: {
      200: dataEnvelope(authorizationView),
      ...errorResponses(400, 401, 403, 404, 409, 422, 429),
    },
  },
  examples: { request: { status: 'approved' }, responses: { 200: { data: approvedAuthorization } } },
});

export const revokePixAutomaticAuthorization = operation({
  method: 'DELETE',
  path: `${AUTHORIZATIONS_ROUTE}/:id`,
  access: { auth: 'api_key', scopes: ['pix:write'] },
  schema: {
    operationId: 'revokePixAutomaticAuthorization',
    summary: 'Revoke a Pix Automatic authorization (no refund of past debits)',
    description:
      "Revokes the consent at the provider, then records it: 200 `cancelled`. A cancelled one answers 200 unchanged (a repeat is harmless). Expired or failed: 409 automatic_not_available. `processing` or `unknown`: 409 reconciliation_required (refresh first). The provider refuses (e.g. a debit is due today): 409 reconciliation_required, unchanged. Unconfirmed, or another revoke of it in progress: 502 provider_cancel_unconfirmed, unchanged (try again later). Only the key's own tenant (a descendant's: 403 forbidden).",
    params: idParams,
    response: {
      200: dataEnvelope(authorizationView),
      ...errorResponses(401, 403, 404, 409, 429, 502, 503),
    },
  },
  examples: { responses: { 200: { data: cancelledAuthorization } } },
});

// Debits (issue 27 item 2): the contract lives beside its body (../pix-automatic-charges.ts).
export { createPixAutomaticCharge } from '../pix-automatic-charges.ts';
