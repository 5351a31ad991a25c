import { checkoutListQuery, checkoutView, createCheckoutBody } from '../checkouts.ts';
import { creationResponses, dataEnvelope, errorEnvelope, idParams, listEnvelope } from '../envelopes.ts';
import { customer, LATER, TENANT } from '../examples.ts';
import { operation } from '../operation.ts';

/** Hosted checkouts (SPEC 2.7, 3.5, 4.9, 5.3; docs/decisions.md "Hosted checkout (issue 25)"). */
const CHECKOUTS_ROUTE = '/v1/checkouts';

const CHECKOUT_ID = 'chk_01jd5a7c9e1g3j5m7p9r1t3v5x';
const openCheckout = {
  id: CHECKOUT_ID,
  tenant_id: TENANT,
  livemode: false,
  status: 'open',
  methods: ['pix', 'boleto'],
  amount: 15990,
  currency: 'BRL',
  reference: 'pedido-2026-000124',
  description: 'Pedido 124: tênis de corrida',
  customer: { name: customer.name, document: customer.document, email: customer.email },
  url: `https://pagamentos.example.com/checkout/${CHECKOUT_ID}/Jx3c8p0ZqT7mW2kY9bV4nR6sL1dF5hGa`,
  expires_at: '2026-11-24T14:07:31.058Z',
  transaction_ids: [],
  paid_transaction_id: null,
  late_payments: [],
  callback_url: 'https://loja.example.com/webhooks/calebe',
  cost_center_id: null,
  cost_center_name: null,
  created_at: LATER,
  updated_at: LATER,
};

export const createCheckout = operation({
  method: 'POST',
  path: CHECKOUTS_ROUTE,
  // The write scope depends on the offered methods: checked by the handler (403 insufficient_scope).
  access: { auth: 'api_key', idempotencyKey: true },
  schema: {
    operationId: 'createCheckout',
    summary: 'Create a hosted checkout link',
    description:
      "Requires Idempotency-Key (scope: tenant + key, in the key's mode) and the write scope of EACH offered method (pix:write, boleto:write, credit_card:write; else 403 insufficient_scope). Routing is checked for each method as a charge would be (422 provider_not_configured, provider_method_disabled, amount_limit_exceeded, subaccount_not_configured and subaccount_credentials_missing for a marketplace provider, …), so a link that cannot be paid is never created. 201 new; 200 replay with `Idempotency-Replayed: true`; another body under the key is 409 idempotency_conflict. Send `url` to the payer: the signed page where they pick a method.",
    body: createCheckoutBody,
    response: creationResponses(checkoutView, 'checkout', 400, 403, 409, 422),
  },
  examples: {
    request: {
      methods: ['pix', 'boleto'],
      amount: 15990,
      reference: 'pedido-2026-000124',
      description: 'Pedido 124: tênis de corrida',
      customer,
      expires_in: 86400,
      boleto: { due_in_days: 3 },
      callback_url: 'https://loja.example.com/webhooks/calebe',
    },
    responses: { 200: { data: openCheckout }, 201: { data: openCheckout } },
  },
});

export const listCheckouts = operation({
  method: 'GET',
  path: CHECKOUTS_ROUTE,
  access: { auth: 'api_key', scopes: ['transactions:read'] },
  schema: {
    operationId: 'listCheckouts',
    summary: "List checkouts of the key's tenant (and, on request, its descendants)",
    description:
      "Newest first, only the key's mode. `reference` is an exact match; `tenant_id` selects the filter root within the key's tree (outside: 404); `include_descendants=true` adds its subtree. Page with limit and offset as GET /v1/transactions.",
    querystring: checkoutListQuery,
    response: { 200: listEnvelope(checkoutView), 404: errorEnvelope },
  },
  examples: { responses: { 200: { data: [openCheckout], meta: { limit: 50, offset: 0, count: 1 } } } },
});

export const getCheckout = operation({
  method: 'GET',
  path: `${CHECKOUTS_ROUTE}/:id`,
  access: { auth: 'api_key', scopes: ['transactions:read'] },
  schema: {
    operationId: 'getCheckout',
    summary: "A checkout of the key's tenant or of a descendant",
    description: "Outside the key's tree or of the other mode: 404 not_found.",
    params: idParams,
    response: { 200: dataEnvelope(checkoutView), 404: errorEnvelope },
  },
  examples: { responses: { 200: { data: openCheckout } } },
});
