import { saoPauloDate } from '../aggregates/business-date.ts';

/**
 * The records the examples of /openapi.json share (issue 15 item 1): a component's example
 * (./component-examples.ts), the operations' own (`examples` of src/contract/operations/*.ts) and the
 * webhook events (./webhook-examples.ts) show the same charge, tenant and endpoint. Realistic Brazilian data
 * (CPF-shaped document, São Paulo address, centavos); a public charge never shows `tenant_id`.
 */

export const TENANT = 'ten_01jd3x8m2q4r6t8v0w2y4z6b8c';
/** A child of TENANT (SPEC 4.13). */
export const SUBTENANT = 'ten_01jd3y7p9r1t3v5x7z9b1d3f5h';
export const TXN = 'txn_01jd4v0q7zk4w9m2x3b5n6p8rt';
export const BOLETO_TXN = 'txn_01jd4w3k9p1s5u7w9y1a3c5e7g';
export const AT = '2026-11-23T14:05:09.412Z';
export const FEE_VERSION = 'fee_01jd3v2k4m6p8r0t2w4y6a8c0e';
export const LATER = '2026-11-23T14:07:31.058Z';

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

export const customer = {
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

/** The payer's account a boleto refund is paid to (SPEC 4.7). */
export const refundBankAccount = {
  bank_code: '341',
  branch: '0912',
  account: '45873-2',
  account_type: 'checking',
  holder_name: 'Maria Aparecida Souza',
  holder_document: '52998224725',
};

export const transaction = {
  id: TXN,
  tenant_id: TENANT,
  amount: 15990,
  // 1.99% of 15990 = 318.2 -> 318, plus 30 fixed (the tenant's own version).
  retained_amount: 348,
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
  split: { total_fee_amount: 348, merchant_amount: 15642, on: 'pix' },
  tenant_fee_id: FEE_VERSION,
  fee_starts_on: '2026-11-01',
  cost_center_id: 'cc_01jd3y2b4d6f8h0k2m4p6r8t0v',
  cost_center_name: 'Loja Pinheiros',
  callback_url: 'https://loja.example.com/webhooks/calebe',
  refund: null,
  credit_card: null,
  pix_automatic_authorization_id: null,
  scheduled_due_date: null,
  created_at: AT,
  updated_at: AT,
};

/** While the outcome is uncertain there is nothing to pay yet (SPEC 2.2). */
export const processingTransaction = {
  ...transaction,
  status: 'processing',
  pix_copy_paste: null,
  pix_qr_code: null,
  expires_at: null,
};

/** A routing rule as created (its id aside). */
export const routingRuleRequest = {
  method: 'pix',
  tenant_id: null,
  provider_id: 'prv_01jd3v4x6z8b0d2f4h6k8m0p2r',
  priority: 100,
  max_amount: 10000000,
  enabled: true,
};

export const paidTransaction = {
  ...transaction,
  status: 'paid',
  pix_copy_paste: null,
  pix_qr_code: null,
  paid_with: 'pix',
  paid_at: LATER,
  updated_at: LATER,
};

export const boletoTransaction = {
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
  // Only an ancestor charges boleto fees (R$ 2,50 fixed): the tenant's own fields are null.
  retained_amount: 250,
  split: { total_fee_amount: 250, merchant_amount: 48500, on: 'boleto' },
  tenant_fee_id: null,
  fee_starts_on: null,
};

/** A fee version (issue 28 item 4): the tenant's own Pix fees, 1.99% + R$ 0,30. */
export const feeVersion = {
  id: FEE_VERSION,
  tenant_id: TENANT,
  method: 'pix',
  percent_bps: 199,
  fixed_amount: 30,
  starts_on: '2026-11-01',
  created_at: AT,
};

export const apiKey = {
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

export const webhookEndpoint = {
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

export const tenant = {
  id: TENANT,
  name: 'Padaria Pão de Mel Ltda',
  type_id: 'tty_01jd3t2v4x6z8b0d2f4h6k8m0p',
  parent_id: null,
  status: 'active',
};

export const user = {
  id: 'usr_01jd3w1a3c5e7g9j1l3n5q7s9u',
  email: 'ana.lima@example.com',
  role: 'tenant_admin',
  tenant_id: TENANT,
  status: 'active',
};

/** `user`'s panel login: createSession's request; createUser and the password change reuse its password. */
export const userLogin = { email: user.email, password: 'correta-cavalo-bateria-grampo' };

export const webhookDelivery = {
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
