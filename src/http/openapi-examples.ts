/**
 * Examples of /openapi.json (issue 15 item 1), in one place so route files keep only their schemas: one per
 * component (envelopes of it are derived) and, per operationId, the request body and any response that is
 * not an envelope of a component. Redocly (no-invalid-media-type-examples) and test/http/openapi.test.ts
 * validate every one against its schema. Realistic Brazilian data; a public charge never shows `tenant_id`.
 */

import { saoPauloDate } from '../aggregates/business-date.ts';

const TENANT = 'ten_01jd3x8m2q4r6t8v0w2y4z6b8c';
const TXN = 'txn_01jd4v0q7zk4w9m2x3b5n6p8rt';
const BOLETO_TXN = 'txn_01jd4w3k9p1s5u7w9y1a3c5e7g';
const AT = '2026-11-23T14:05:09.412Z';
const LATER = '2026-11-23T14:07:31.058Z';

/**
 * Issue 23 item 1.9: a request example is sent as is (the /docs "Test Request" button, the Postman
 * collection), so it names no record that does not exist (no `cost_center_id`: one comes from
 * POST /v1/cost-centers) and no date in the past: due dates, in the boleto examples too, are São Paulo
 * days ahead of when the document is built, inside the today..today+365 window. The collection replaces
 * them with variables its pre-request script sets.
 */
const dayAhead = (days: number) => saoPauloDate(new Date(Date.now() + days * 86_400_000));
export const EXAMPLE_DUE_DATE = dayAhead(5);
export const EXAMPLE_NEW_DUE_DATE = dayAhead(12);

const customer = {
  name: 'Maria Aparecida Souza',
  document: '52998224725',
  email: 'maria.souza@example.com',
  phone: '11991234567',
  address: {
    zip_code: '01310200',
    street: 'Avenida Paulista',
    number: '1578',
    complement: 'Apto 42',
    district: 'Bela Vista',
    city: 'São Paulo',
    state: 'SP',
  },
};

const transaction = {
  id: TXN,
  tenant_id: TENANT,
  amount: 15990,
  retained_amount: 0,
  currency: 'BRL',
  status: 'pending',
  method: 'pix',
  reference: 'pedido-2026-000123',
  description: 'Pedido 123: tênis de corrida',
  simulated: true,
  environment: 'sandbox',
  livemode: false,
  pix_copy_paste: `SIMULADOR-TESTE-NAO-PAGAVEL:${TXN}`,
  pix_qr_code: `SIMULADOR-TESTE-NAO-PAGAVEL:${TXN}`,
  expires_at: '2026-11-23T15:05:09.412Z',
  provider_reference: `sim_${TXN}`,
  subaccount_id: null,
  failure_code: null,
  provider_error_code: null,
  provider_error_message: null,
  provider_http_status: null,
  boleto_due_date: null,
  boleto_url: null,
  document_url: `https://pagamentos.calebe.com.br/cobranca/${TXN}/q3v8KJ2mX0bT5rWc9nYp`,
  boleto_digitable_line: null,
  boleto_barcode: null,
  boleto_pix_copy_paste: null,
  boleto_pix_expires_at: null,
  paid_with: null,
  paid_at: null,
  duplicate_payment_at: null,
  split: null,
  tenant_fee_id: null,
  fee_starts_on: null,
  cost_center_id: 'cc_01jd3y2b4d6f8h0k2m4p6r8t0v',
  cost_center_name: 'Loja Pinheiros',
  callback_url: 'https://loja.example.com/webhooks/calebe',
  refund: null,
  created_at: AT,
  updated_at: AT,
};
const paidTransaction = {
  ...transaction,
  status: 'paid',
  pix_copy_paste: null,
  pix_qr_code: null,
  paid_with: 'pix',
  paid_at: LATER,
  updated_at: LATER,
};
const boletoTransaction = {
  ...transaction,
  id: BOLETO_TXN,
  amount: 48750,
  method: 'boleto',
  reference: 'mensalidade-2026-12',
  description: 'Mensalidade de dezembro',
  pix_copy_paste: null,
  pix_qr_code: null,
  expires_at: null,
  provider_reference: `sim_${BOLETO_TXN}`,
  boleto_due_date: EXAMPLE_DUE_DATE,
  document_url: `https://pagamentos.calebe.com.br/cobranca/${BOLETO_TXN}/Zt4nP8wQ1cR6yV3kL0sJ`,
};

const DAY = (date: string, created: number, amount: number, paid: number, paidAmount: number) => ({
  date,
  created_count: created,
  created_amount: amount,
  paid_count: paid,
  paid_amount: paidAmount,
});

const apiKey = {
  id: 'key_01jd3z5c7e9g1j3l5n7q9s1u3w',
  tenant_id: TENANT,
  name: 'ERP da loja',
  mode: 'test',
  scopes: ['pix:write', 'boleto:write', 'transactions:read'],
  access_profile: 'standard',
  prefix: 'clb_test_Q7vK',
  status: 'issued',
  created_at: AT,
  revoked_at: null,
};

const webhookEndpoint = {
  id: 'whe_01jd3x9n1q3s5u7w9y1a3c5e7g',
  tenant_id: TENANT,
  url: 'https://loja.example.com/webhooks/calebe',
  mode: 'test',
  enabled: true,
  disabled_reason: null,
  previous_secret_expires_at: null,
  created_at: AT,
  updated_at: AT,
};

const tenant = {
  id: TENANT,
  name: 'Padaria Pão de Mel Ltda',
  type_id: 'tty_01jd3t2v4x6z8b0d2f4h6k8m0p',
  parent_id: null,
  status: 'active',
};

const user = {
  id: 'usr_01jd3w1a3c5e7g9j1l3n5q7s9u',
  email: 'ana.lima@example.com',
  role: 'tenant_admin',
  tenant_id: TENANT,
  status: 'active',
};

const webhookDelivery = {
  id: 'whd_7c1e9a3b5d2f4e6a8b0c1d3e5f7a9b2c',
  message_id: 'msg_0f8b6c2e4d1a4f7b9c3e5a2d8e6f1b47',
  type: 'transaction.created',
  tenant_id: TENANT,
  transaction_id: TXN,
  sequence: 2,
  destination: 'endpoint',
  endpoint_id: 'whe_01jd3x9n1q3s5u7w9y1a3c5e7g',
  url: 'https://loja.example.com/webhooks/calebe',
  status: 'delivered',
  attempts: 1,
  next_attempt_at: null,
  last_attempt_at: '2026-11-23T14:05:10.003Z',
  last_status_code: 200,
  last_error: null,
  delivered_at: '2026-11-23T14:05:10.187Z',
  created_at: AT,
};

/** One example per component schema, by its name under components.schemas. */
export const componentExamples: Record<string, unknown> = {
  Transaction: transaction,
  TransactionRequest: {
    transaction_id: TXN,
    source: 'captured',
    request: {
      amount: 15990,
      reference: 'pedido-2026-000123',
      description: 'Pedido 123: tênis de corrida',
      customer,
      expires_in: 3600,
    },
    provider_request: null,
    missing_fields: [],
  },
  ApiKey: apiKey,
  IssuedApiKey: { ...apiKey, key: 'clb_test_Q7vKx2mR9pLw4TzN8cYb1HfJ6dGs3AeU5kVq0WnXoEi' },
  AuditEntry: {
    id: '5b0e2c7a-91d4-4e3f-8a6b-2c9d1e7f4a03',
    occurred_at: AT,
    actor: 'user:usr_01jd3w1a3c5e7g9j1l3n5q7s9u',
    action: 'tenant.suspended',
    target_type: 'tenant',
    target_id: TENANT,
    tenant_id: TENANT,
    request_id: 'req_01jd4a1b3c5d7e9f1g3h5j7k9n',
    before: { status: 'active' },
    after: { status: 'suspended' },
  },
  CostCenter: {
    id: 'cc_01jd3y2b4d6f8h0k2m4p6r8t0v',
    tenant_id: TENANT,
    name: 'Loja Pinheiros',
    active: true,
    created_at: AT,
    updated_at: AT,
  },
  Provider: {
    id: 'prv_01jd3v4x6z8b0d2f4h6k8m0p2r',
    name: 'Simulador',
    kind: 'simulator',
    environment: 'sandbox',
    enabled_methods: ['pix', 'boleto'],
    is_marketplace: false,
    enabled: true,
    has_credentials: false,
    // The simulator talks to no host; an external provider shows the Safe2Pay hosts in effect.
    payment_host: null,
    api_host: null,
    boleto_refund_payout: false,
  },
  RoutingRule: {
    id: 'rul_01jd3v6z8b0d2f4h6k8m0p2r4t',
    method: 'pix',
    tenant_id: null,
    provider_id: 'prv_01jd3v4x6z8b0d2f4h6k8m0p2r',
    priority: 100,
    max_amount: 10000000,
    enabled: true,
  },
  SessionCreated: {
    token: 'cls_Jk3mQ8vT1xZ5cR9pL2wN7yB4hF6dS0aE2gK8uW1oRt',
    expires_at: '2026-11-24T02:05:09.412Z',
    user: {
      id: 'usr_01jd3w1a3c5e7g9j1l3n5q7s9u',
      email: 'ana.lima@example.com',
      role: 'tenant_admin',
      tenant_id: TENANT,
    },
  },
  PaymentSettings: {
    allow_live_payments: false,
    source: 'database',
    environment_default: false,
    allow_unscoped_live_payments: false,
    has_live_payment_scope: true,
    issuance_authorized: false,
    updated_at: AT,
    updated_by: 'user:usr_01jd3w1a3c5e7g9j1l3n5q7s9u',
  },
  AdminSummary: {
    days: 2,
    livemode: false,
    tenant_id: TENANT,
    window: {
      from: '2026-11-22T03:00:00.000Z',
      to: '2026-11-24T03:00:00.000Z',
      time_zone: 'America/Sao_Paulo',
    },
    totals: {
      created_count: 12,
      created_amount: 245310,
      paid_count: 9,
      paid_amount: 187420,
      success_rate: 0.75,
    },
    status_counts: { processing: 0, pending: 2, paid: 9, expired: 1, failed: 0, unknown: 0, refunded: 0 },
    daily: [DAY('2026-11-22', 5, 98700, 4, 80450), DAY('2026-11-23', 7, 146610, 5, 106970)],
    tenants: { total: 3, active: 3, suspended: 0 },
  },
  TenantType: { id: 'tty_01jd3t2v4x6z8b0d2f4h6k8m0p', name: 'Franquia', allows_children: true },
  Tenant: tenant,
  TransactionEvent: {
    id: '0f8b6c2e-4d1a-4f7b-9c3e-5a2d8e6f1b47',
    position: 1842,
    version: 1,
    type: 'Transaction.Reserved',
    schema_version: 1,
    data: { transaction_id: TXN, tenant_id: TENANT, method: 'pix', amount: 15990, livemode: false },
    metadata: {
      actor: 'api_key:key_01jd3z5c7e9g1j3l5n7q9s1u3w',
      request_id: 'req_01jd4v0q7zk4w9m2x3b5n6p8rs',
      tenant_id: TENANT,
      livemode: false,
      correlation_id: null,
      causation_id: null,
    },
    recorded_at: AT,
  },
  User: user,
  RefundAwaitingOperator: {
    transaction_id: BOLETO_TXN,
    tenant_id: TENANT,
    livemode: true,
    method: 'boleto',
    amount: 48750,
    paid_with: 'boleto',
    refund: { status: 'pending' },
    updated_at: LATER,
  },
  RefundBankAccount: {
    transaction_id: BOLETO_TXN,
    bank_account: {
      bank_code: '341',
      branch: '0912',
      account: '45873-2',
      account_type: 'checking',
      holder_name: 'Maria Aparecida Souza',
      holder_document: '52998224725',
    },
    hmac: '6f1d0c8e5b2a4f7e9c3d1a8b5e2f7c4a9d6b3e0f1a8c5d2e7b4f9a6c3d0e1b8f',
  },
  WebhookDelivery: webhookDelivery,
  WebhookEndpoint: webhookEndpoint,
  CreatedWebhookEndpoint: { ...webhookEndpoint, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
  WebhookEndpointSecrets: {
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    previous_secret: null,
    previous_expires_at: null,
  },
};

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const refName = (schema: unknown): string | undefined =>
  isObject(schema) && typeof schema.$ref === 'string' ? schema.$ref.split('/').pop() : undefined;

/**
 * The example of a response schema that is a component or an envelope of one (SPEC 2.1): `{ data: X }`,
 * `{ data: [X], meta }` or `{ data: [X] }`.
 */
export function exampleOf(schema: unknown): unknown {
  const own = refName(schema);
  if (own) return componentExamples[own];
  const data = isObject(schema) && isObject(schema.properties) ? schema.properties.data : undefined;
  const one = refName(data);
  if (one && componentExamples[one] !== undefined) return { data: componentExamples[one] };
  const many = isObject(data) ? refName(data.items) : undefined;
  if (!many || componentExamples[many] === undefined) return undefined;
  const hasMeta = isObject(schema) && isObject(schema.properties) && 'meta' in schema.properties;
  return hasMeta
    ? { data: [componentExamples[many]], meta: { limit: 50, offset: 0, count: 1 } }
    : { data: [componentExamples[many]] };
}

export interface OperationExamples {
  /** The JSON request body. */
  request?: unknown;
  /** By status, for responses that are not an envelope of a component (or that show another state). */
  responses?: Record<number, unknown>;
}

const chargeBody = {
  amount: 15990,
  reference: 'pedido-2026-000123',
  description: 'Pedido 123: tênis de corrida',
  callback_url: 'https://loja.example.com/webhooks/calebe',
};
const boletoBody = {
  ...chargeBody,
  amount: 48750,
  reference: 'mensalidade-2026-12',
  description: 'Mensalidade de dezembro',
  customer,
  boleto: {
    due_date: EXAMPLE_DUE_DATE,
    instruction: 'Não receber após 30 dias do vencimento.',
    penalty_rate: 2,
    interest_rate: 1,
    cancel_after_due: false,
  },
};
const boletoCreated = { data: boletoTransaction };

/** By operationId. */
export const operationExamples: Record<string, OperationExamples> = {
  getHealth: { responses: { 200: { status: 'ok' } } },
  getReadiness: { responses: { 200: { status: 'ready', checks: { database: 'ok', rate_limiter: 'ok' } } } },
  getChargePage: {
    responses: {
      200: '<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>Cobrança Pix: R$ 159,90</title></head><body>…</body></html>',
    },
  },
  createSession: { request: { email: 'ana.lima@example.com', password: 'correta-cavalo-bateria-grampo' } },
  createProvider: {
    request: {
      name: 'Simulador',
      kind: 'simulator',
      environment: 'sandbox',
      enabled_methods: ['pix', 'boleto'],
    },
  },
  updateProvider: { request: { enabled_methods: ['pix'], enabled: true } },
  createRoutingRule: {
    request: {
      method: 'pix',
      tenant_id: null,
      provider_id: 'prv_01jd3v4x6z8b0d2f4h6k8m0p2r',
      priority: 100,
      max_amount: 10000000,
      enabled: true,
    },
  },
  updateRoutingRule: { request: { priority: 50, max_amount: 5000000 } },
  updatePaymentSettings: { request: { allow_live_payments: false } },
  createApiKey: {
    request: {
      tenant_id: TENANT,
      mode: 'test',
      scopes: ['pix:write', 'boleto:write', 'transactions:read'],
      name: 'ERP da loja',
    },
    responses: { 200: { data: apiKey } },
  },
  createTenantType: { request: { name: 'Franquia', allows_children: true } },
  createTenant: {
    request: { name: 'Padaria Pão de Mel Ltda', type_id: 'tty_01jd3t2v4x6z8b0d2f4h6k8m0p', parent_id: null },
  },
  suspendTenant: {
    responses: { 200: { data: { ...tenant, status: 'suspended' } } },
  },
  createUser: {
    request: {
      email: 'ana.lima@example.com',
      password: 'correta-cavalo-bateria-grampo',
      role: 'tenant_admin',
      tenant_id: TENANT,
    },
  },
  suspendUser: {
    responses: { 200: { data: { ...user, status: 'suspended' } } },
  },
  // Your own password (issue 23 item 2.4): the current one, as logged in with createSession's example.
  setUserPassword: {
    request: { password: 'outra-senha-longa-e-forte', current_password: 'correta-cavalo-bateria-grampo' },
  },
  createCostCenter: { request: { name: 'Loja Pinheiros' } },
  updateCostCenter: { request: { name: 'Loja Pinheiros (reformada)', active: true } },
  createWebhookEndpoint: {
    request: {
      tenant_id: TENANT,
      url: 'https://loja.example.com/webhooks/calebe',
      mode: 'test',
      enabled: true,
    },
    responses: { 200: { data: webhookEndpoint } },
  },
  updateWebhookEndpoint: { request: { enabled: true } },
  rotateWebhookEndpointSecret: {
    responses: {
      200: {
        data: {
          secret: 'whsec_3yH7kLw2QpV9cT5nR1xZ8bM4fJ6dS0aE',
          previous_secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
          previous_expires_at: '2026-11-24T14:05:09.412Z',
        },
      },
    },
  },
  getWebhookDelivery: {
    responses: {
      200: {
        data: {
          ...webhookDelivery,
          attempts_log: [
            {
              attempt: 1,
              started_at: '2026-11-23T14:05:10.003Z',
              duration_ms: 184,
              outcome: 'delivered',
              status_code: 200,
              error: null,
            },
          ],
        },
      },
    },
  },
  getWebhookCallbackSecret: {
    responses: {
      200: { data: { tenant_id: TENANT, mode: 'test', secret: 'whsec_p2Xb7Tq9Lm4Kc8Vz1Nw6Rj3Hd5Gf0SaQ' } },
    },
  },
  createPix: {
    request: { ...chargeBody, customer, expires_in: 3600 },
    responses: {
      // While the outcome is uncertain there is nothing to pay yet (SPEC 2.2).
      202: {
        data: {
          ...transaction,
          status: 'processing',
          pix_copy_paste: null,
          pix_qr_code: null,
          expires_at: null,
        },
      },
    },
  },
  createBoleto: {
    request: boletoBody,
    responses: {
      200: boletoCreated,
      201: boletoCreated,
      202: { data: { ...boletoTransaction, status: 'processing' } },
    },
  },
  createPanelBoleto: {
    // The panel names the tenant; the public creation takes it from the API key.
    request: { ...boletoBody, tenant_id: TENANT },
    responses: {
      200: boletoCreated,
      201: boletoCreated,
      202: { data: { ...boletoTransaction, status: 'processing' } },
    },
  },
  simulateTransaction: { request: { status: 'paid' }, responses: { 200: { data: paidTransaction } } },
  simulatePanelTransaction: { request: { status: 'paid' }, responses: { 200: { data: paidTransaction } } },
  refundTransaction: {
    request: {
      bank_account: {
        bank_code: '341',
        branch: '0912',
        account: '45873-2',
        account_type: 'checking',
        holder_name: 'Maria Aparecida Souza',
        holder_document: '52998224725',
      },
    },
    responses: {
      200: {
        data: {
          ...boletoTransaction,
          status: 'refunded',
          paid_with: 'boleto',
          paid_at: LATER,
          refund: { status: 'succeeded' },
        },
      },
      // The provider's answer was uncertain: still paid, refund pending until asked again or reconciled.
      202: {
        data: {
          ...boletoTransaction,
          status: 'paid',
          paid_with: 'pix',
          paid_at: LATER,
          refund: { status: 'pending' },
        },
      },
    },
  },
  completeRefund: {
    request: {
      evidence: { reference: 'E00000000202611241530abcdef123456', paid_on: '2026-11-24', amount: 48750 },
    },
  },
  cancelRefund: { request: { reason: 'O pagador pediu o valor como crédito na próxima mensalidade.' } },
  updateBoletoDueDate: {
    request: { due_date: EXAMPLE_NEW_DUE_DATE },
    responses: {
      200: { data: { ...boletoTransaction, boleto_due_date: EXAMPLE_NEW_DUE_DATE, updated_at: LATER } },
      // The provider's answer was uncertain: the date stays until the change is confirmed.
      202: { data: { ...boletoTransaction, updated_at: LATER } },
    },
  },
};

/** The two SPEC 6 event kinds, as a registered endpoint receives them. */
export const webhookExamples = {
  'transaction.created': {
    type: 'transaction.created',
    timestamp: AT,
    // Sent when the charge is registered, before the provider answered: nothing to pay yet.
    data: {
      ...transaction,
      status: 'processing',
      pix_copy_paste: null,
      pix_qr_code: null,
      expires_at: null,
      previous_status: null,
      sequence: 1,
    },
  },
  'transaction.updated': {
    type: 'transaction.updated',
    timestamp: LATER,
    data: { ...paidTransaction, previous_status: 'pending', sequence: 3 },
  },
};
