import { z } from 'zod';
import type { Role } from '../../aggregates/access.ts';
import { creationResponses, dataEnvelope, errorEnvelope, idParams, listEnvelope } from '../envelopes.ts';
import { AT, customer, EXAMPLE_DUE_DATE, LATER, TENANT } from '../examples.ts';
import { operation } from '../operation.ts';
import {
  createSubscriptionBody,
  cycleListQuery,
  cycleView,
  patchSubscriptionBody,
  subscriptionListQuery,
  subscriptionView,
} from '../subscriptions.ts';

/** Subscriptions and their cycles (SPEC 2.4, 2.5, 3.3, 3.4, 4.10, 5.3; docs/decisions.md "Subscriptions (issue 26)"). */
const SUBSCRIPTIONS_ROUTE = '/v1/subscriptions';
/** SPEC 3.3: deleting is a panel operation; a viewer only reads (SPEC 5.7). */
const DELETERS = ['super_admin', 'tenant_admin'] as const satisfies readonly Role[];

const SUBSCRIPTION_ID = 'sub_01jd5c2e4g6j8m0p2r4t6v8x0z';
const activeSubscription = {
  id: SUBSCRIPTION_ID,
  tenant_id: TENANT,
  livemode: false,
  status: 'active',
  name: 'Plano mensal',
  customer_name: customer.name,
  amount: 4990,
  method: 'boleto',
  description: 'Mensalidade do plano',
  first_due_date: EXAMPLE_DUE_DATE,
  next_due_date: EXAMPLE_DUE_DATE,
  interval_months: 1,
  advance_days: 5,
  cycle: 0,
  authorization_id: null,
  callback_url: 'https://loja.example.com/webhooks/calebe',
  last_error: null,
  next_attempt_at: null,
  test_clock_id: null,
  cost_center_id: null,
  cost_center_name: null,
  created_at: AT,
  updated_at: AT,
};
const pausedSubscription = { ...activeSubscription, status: 'paused', updated_at: LATER };
const issuedCycle = {
  id: 'scy_01jd5c3f5h7k9n1q3s5u7w9y1a',
  subscription_id: SUBSCRIPTION_ID,
  cycle: 1,
  due_date: EXAMPLE_DUE_DATE,
  status: 'created',
  transaction_id: 'txn_01jd5c3g6j8m0p2r4t6v8x0z2b',
  checkout_id: null,
  transaction_status: 'pending',
  payment_url:
    'https://pagamentos.example.com/cobranca/txn_01jd5c3g6j8m0p2r4t6v8x0z2b/Jx3c8p0ZqT7mW2kY9bV4nR6sL1dF5hGa',
  error_code: null,
  created_at: AT,
  updated_at: AT,
};

export const createSubscription = operation({
  method: 'POST',
  path: SUBSCRIPTIONS_ROUTE,
  // The write scope depends on the method: checked by the handler (403 insufficient_scope).
  access: { auth: 'api_key', idempotencyKey: true },
  schema: {
    operationId: 'createSubscription',
    summary: 'Create a subscription (recurring charges by boleto, Pix link or card)',
    description:
      "Requires Idempotency-Key (scope: tenant + key, in the key's mode; the cost center is part of the body compared) and the write scope of the method (pix and pix_automatic: pix:write; boleto: boleto:write; credit_card: credit_card:write). `first_due_date` is checked in Brasilia time (today or later; boleto and pix at most 365 days ahead). A card subscription needs enabled card routing and, live, the production authorization (else 422/403 and nothing is stored); a card the provider refuses to register is 502 provider_rejected with error.subscription_id, that subscription cancelled; for boleto and pix a missing route does not refuse the subscription: its first charge is retried every 15 minutes (`last_error`). pix_automatic needs an authorization of the key's own tenant and mode (POST /v1/pix-automatic/authorizations; another or unknown: 422 validation_error on authorization_id) whose contract the body repeats (amount, customer.document, first_due_date, interval_months; else 422 automatic_contract_mismatch), not ended (409 automatic_not_available) and serving no other subscription (409 automatic_authorization_in_use); it may still await the payer's approval (the cycle waits with last_error automatic_not_approved). Its first debit is scheduled from 10 days before the first due date, later ones advance_days before theirs. 201 new; 200 replay with `Idempotency-Replayed: true`; another body under the key is 409 idempotency_conflict.",
    body: createSubscriptionBody,
    // 502: a card the registration refuses (the subscription is cancelled, named in error.subscription_id).
    response: creationResponses(subscriptionView, 'subscription', 400, 403, 409, 422, 502),
  },
  examples: {
    request: {
      name: 'Plano mensal',
      description: 'Mensalidade do plano',
      amount: 4990,
      method: 'boleto',
      first_due_date: EXAMPLE_DUE_DATE,
      interval_months: 1,
      advance_days: 5,
      customer,
      callback_url: 'https://loja.example.com/webhooks/calebe',
    },
    responses: { 200: { data: activeSubscription }, 201: { data: activeSubscription } },
  },
});

export const listSubscriptions = operation({
  method: 'GET',
  path: SUBSCRIPTIONS_ROUTE,
  access: { auth: 'api_key', scopes: ['transactions:read'] },
  schema: {
    operationId: 'listSubscriptions',
    summary: "List subscriptions of the key's tenant (and, on request, its descendants)",
    description:
      "Newest first, only the key's mode. `status` filters; `tenant_id` selects the filter root within the key's tree (outside: 404); `include_descendants=true` adds its subtree. Page with limit and offset as GET /v1/transactions.",
    querystring: subscriptionListQuery,
    response: { 200: listEnvelope(subscriptionView), 404: errorEnvelope },
  },
  examples: {
    responses: { 200: { data: [activeSubscription], meta: { limit: 50, offset: 0, count: 1 } } },
  },
});

export const getSubscription = operation({
  method: 'GET',
  path: `${SUBSCRIPTIONS_ROUTE}/:id`,
  access: { auth: 'api_key', scopes: ['transactions:read'] },
  schema: {
    operationId: 'getSubscription',
    summary: "A subscription of the key's tenant or of a descendant",
    description: "Outside the key's tree, of the other mode or deleted: 404 not_found.",
    params: idParams,
    response: { 200: dataEnvelope(subscriptionView), 404: errorEnvelope },
  },
  examples: { responses: { 200: { data: activeSubscription } } },
});

export const listSubscriptionCycles = operation({
  method: 'GET',
  path: `${SUBSCRIPTIONS_ROUTE}/:id/cycles`,
  access: { auth: 'api_key', scopes: ['transactions:read'] },
  schema: {
    operationId: 'listSubscriptionCycles',
    summary: 'The cycles of a subscription, newest first',
    description:
      "Newest due date first; page with limit and offset. `transaction_status` is the cycle's charge as it is now; a Pix cycle shows its transaction once the payer chose to pay on its link (`payment_url`). The subscription's 404 rules apply.",
    params: idParams,
    querystring: cycleListQuery,
    response: { 200: listEnvelope(cycleView), 404: errorEnvelope },
  },
  examples: { responses: { 200: { data: [issuedCycle], meta: { limit: 50, offset: 0, count: 1 } } } },
});

export const updateSubscription = operation({
  method: 'PATCH',
  path: `${SUBSCRIPTIONS_ROUTE}/:id`,
  // The write scope depends on the subscription's method: checked by the handler (403 insufficient_scope).
  access: { auth: 'api_key' },
  schema: {
    operationId: 'updateSubscription',
    summary: 'Pause, resume or cancel a subscription, or change its cost center',
    description:
      "`status` paused, active (resume: cycles already overdue are skipped, never charged late) or cancelled (final); `cost_center_id` an active center of the tenant, or null to remove it. Affects future emissions only; an emission in progress finishes. The method's write scope; only the key's own tenant (a descendant's subscription: 403 forbidden; other mode or outside: 404). A cancelled subscription cannot change status (409 subscription_cancelled). Setting what is already set changes nothing, so a repeat is harmless: no Idempotency-Key.",
    params: idParams,
    body: patchSubscriptionBody,
    response: {
      200: dataEnvelope(subscriptionView),
      403: errorEnvelope,
      404: errorEnvelope,
      409: errorEnvelope,
      422: errorEnvelope,
    },
  },
  examples: {
    request: { status: 'paused' },
    responses: { 200: { data: pausedSubscription } },
  },
});

export const deleteSubscription = operation({
  method: 'DELETE',
  path: '/admin/subscriptions/:id',
  access: { auth: 'session', roles: DELETERS },
  schema: {
    operationId: 'deleteSubscription',
    summary: 'Delete a subscription and its cycles (panel; final: it is 404 afterwards)',
    description:
      'super_admin: any tenant; tenant_admin: its tree (outside: 404). Its issued charges remain; a Pix Automatic authorization is not revoked.',
    params: idParams,
    response: { 204: z.null().meta({ description: 'Deleted' }), 404: errorEnvelope },
  },
});
