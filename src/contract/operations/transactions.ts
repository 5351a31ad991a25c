import { z } from 'zod';
import { boletoBody, panelBoletoBody, pixBody } from '../charges.ts';
import { dataEnvelope, errorEnvelope, errorResponses, idParams, listEnvelope } from '../envelopes.ts';
import {
  boletoTransaction,
  customer,
  EXAMPLE_DUE_DATE,
  EXAMPLE_NEW_DUE_DATE,
  LATER,
  paidTransaction,
  processingTransaction,
  refundBankAccount,
  TENANT,
} from '../examples.ts';
import { operation } from '../operation.ts';
import {
  cancelRefundBody,
  completeRefundBody,
  refundBankAccountView,
  refundQueueItem,
  refundQueueQuery,
} from '../refunds.ts';
import {
  dueDateBody,
  panelTransactionQuery,
  publicTransactionQuery,
  refundBody,
  simulateBody,
  transactionEvent,
  transactionRequestView,
  transactionView,
} from '../transactions.ts';

const created = dataEnvelope(transactionView);
/** The answers of a charge creation (SPEC 4.1, 4.2, 4.9). */
export const chargeResponses = {
  200: created.meta({ description: 'Replay (`Idempotency-Replayed: true`), including failed/unknown.' }),
  201: dataEnvelope(transactionView).meta({ description: 'Created.' }),
  202: dataEnvelope(transactionView).meta({ description: 'Unknown outcome, or a replay still processing.' }),
  400: errorEnvelope,
  404: errorEnvelope,
  409: errorEnvelope,
  413: errorEnvelope,
  422: errorEnvelope,
  500: errorEnvelope,
  502: errorEnvelope,
  503: errorEnvelope,
};

/** Examples: what a charge creation sends, and its answers. */
const chargeRequest = {
  amount: 15990,
  reference: 'pedido-2026-000123',
  description: 'Pedido 123: tênis de corrida',
  callback_url: 'https://loja.example.com/webhooks/calebe',
};
const boletoRequest = {
  ...chargeRequest,
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
const boletoResponses = {
  200: boletoCreated,
  201: boletoCreated,
  202: { data: { ...boletoTransaction, status: 'processing' } },
};
const simulateExamples = { request: { status: 'paid' }, responses: { 200: { data: paidTransaction } } };

/** The panel's refund queue is the super_admin's alone. */
const operatorAccess = { auth: 'session', roles: ['super_admin'] } as const;

/** SPEC 4.1: a Pix charge of the key's tenant. */
export const createPix = operation({
  method: 'POST',
  path: '/v1/pix',
  access: { auth: 'api_key', scopes: ['pix:write'], idempotencyKey: true },
  // The creation answer and its replay written by fast-json-stringify, not zod; errors keep zod (issue 14).
  serializer: 'compiled-success',
  tag: 'Charges',
  schema: {
    operationId: 'createPix',
    summary: 'Create a Pix charge',
    description:
      "Requires Idempotency-Key (scope: tenant + key, shared with boleto). 201 new; 200 replay with `Idempotency-Replayed: true`; 202 unknown or still processing; 502 provider_rejected with error.transaction_id. A tenant routed to a marketplace provider charges through its own active subaccount link (`subaccount_id` in the answer; a parent's link is never used): 422 subaccount_not_configured without one, 422 subaccount_credentials_missing when the link holds no token for the provider's environment; both before anything is stored, for test keys too.",
    body: pixBody,
    response: chargeResponses,
  },
  examples: {
    request: { ...chargeRequest, customer, expires_in: 3600 },
    responses: {
      202: { data: processingTransaction },
    },
  },
});

/** SPEC 4.2: a boleto charge of the key's tenant. */
export const createBoleto = operation({
  method: 'POST',
  path: '/v1/boleto',
  access: { auth: 'api_key', scopes: ['boleto:write'], idempotencyKey: true },
  serializer: 'compiled-success',
  tag: 'Charges',
  schema: {
    operationId: 'createBoleto',
    summary: 'Create a boleto charge',
    description:
      "Requires Idempotency-Key (scope: tenant + key, shared with Pix). Responses as POST /v1/pix. A tenant routed to a marketplace provider charges through its own active subaccount link (`subaccount_id` in the answer; a parent's link is never used): 422 subaccount_not_configured without one, 422 subaccount_credentials_missing when the link holds no token for the provider's environment; both before anything is stored, for test keys too.",
    body: boletoBody,
    response: chargeResponses,
  },
  examples: { request: boletoRequest, responses: boletoResponses },
});

/** The panel's boleto: the same creation for a tenant of the user's tree (docs/decisions.md "Charges"). */
export const createPanelBoleto = operation({
  method: 'POST',
  path: '/admin/boleto',
  access: { auth: 'session', roles: ['super_admin', 'tenant_admin'], idempotencyKey: true },
  serializer: 'compiled-success',
  tag: 'Charges',
  schema: {
    operationId: 'createPanelBoleto',
    summary: 'Create a boleto charge from the panel',
    description:
      "The panel equivalent of POST /v1/boleto, for a tenant the user may charge for: super_admin any tenant (`tenant_id` required), tenant_admin its own tenant (default) or a descendant. Production mode (routing decides simulator or provider). Idempotency scope tenant + key, as the public creation. Outside the tree: 404; a suspended tenant or ancestor: 403 tenant_suspended. A marketplace route needs the tenant's own active subaccount link with the token of the provider's environment (422 subaccount_not_configured, 422 subaccount_credentials_missing), as for POST /v1/boleto.",
    body: panelBoletoBody,
    response: chargeResponses,
  },
  examples: {
    // The panel names the tenant; the public creation takes it from the API key.
    request: { ...boletoRequest, tenant_id: TENANT },
    responses: boletoResponses,
  },
});

/** SPEC 4.4: one charge of the key's tree, in the key's mode. */
export const getTransaction = operation({
  method: 'GET',
  path: '/v1/transactions/:id',
  access: { auth: 'api_key', scopes: ['transactions:read'] },
  schema: {
    operationId: 'getTransaction',
    summary: "A transaction of the key's tenant or of a descendant, in the key's mode",
    description:
      'Local state only (POST …/refresh asks the provider); outside the tree or of the other mode: 404.',
    params: idParams,
    response: { 200: dataEnvelope(transactionView), 404: errorEnvelope },
  },
});

/** SPEC 4.5: the creation request of a charge, as received. */
export const getTransactionRequest = operation({
  method: 'GET',
  path: '/v1/transactions/:id/request',
  access: { auth: 'api_key', scopes: ['transactions:read'] },
  schema: {
    operationId: 'getTransactionRequest',
    summary: 'The creation request of a transaction, as received',
    description: 'Same authorization as GET /v1/transactions/{id}. Contains payer personal data.',
    params: idParams,
    response: { 200: dataEnvelope(transactionRequestView), 404: errorEnvelope },
  },
});

/** Issue 5 item 10: the auditor's history of one charge, from its stream. */
export const listPanelTransactionEvents = operation({
  method: 'GET',
  path: '/admin/transactions/:id/events',
  access: { auth: 'session', roles: ['super_admin', 'tenant_admin', 'viewer'] },
  schema: {
    operationId: 'listPanelTransactionEvents',
    summary: "Read a transaction's events",
    description:
      "Every event of the charge in stream order, with its type, payload, actor, request id and time. super_admin any transaction; tenant_admin and viewer their own tree. A viewer sees the fields its transaction reads show: Transaction.Reserved without the payer's personal data (`request.customer` and `provider_request` null) and refund requests without the bank account's reference.",
    params: idParams,
    response: {
      200: dataEnvelope(z.array(transactionEvent)),
      ...errorResponses(401, 403, 404, 422, 429),
    },
  },
});

/** The panel alias of SPEC 4.5, per role (issue 23 item 2.10). */
export const getPanelTransactionRequest = operation({
  method: 'GET',
  path: '/admin/transactions/:id/request',
  access: { auth: 'session', roles: ['super_admin', 'tenant_admin', 'viewer'] },
  schema: {
    operationId: 'getPanelTransactionRequest',
    summary: 'The creation snapshot of a transaction (panel alias of GET /v1/transactions/{id}/request)',
    description:
      "The same answer as the public read for super_admin (any transaction) and tenant_admin (its own tree), with the payer's personal data. A viewer (its own tree) gets it without the payer: `request.customer` and `provider_request` null. Outside the tree or unknown: 404.",
    params: idParams,
    response: {
      200: dataEnvelope(transactionRequestView),
      ...errorResponses(401, 403, 404, 422, 429),
    },
  },
});

/** SPEC 4.7: a test key settles a pending simulated charge. */
export const simulateTransaction = operation({
  method: 'POST',
  path: '/v1/transactions/:id/simulate',
  access: { auth: 'api_key', scopes: ['transactions:read'], notForDeveloperKeys: true },
  schema: {
    operationId: 'simulateTransaction',
    summary: 'Simulate the outcome of a test transaction',
    description:
      'Test key only (a live key: 409 simulation_not_allowed). Scopes transactions:read plus the method write scope. Only a pending simulated transaction (else 409 simulation_not_allowed); ENABLE_SIMULATOR off: 422 simulator_disabled.',
    params: idParams,
    body: simulateBody,
    response: { 200: dataEnvelope(transactionView), ...errorResponses(400, 401, 403, 404, 409, 422, 429) },
  },
  examples: simulateExamples,
});

/** SPEC 4.7 from the panel. */
export const simulatePanelTransaction = operation({
  method: 'POST',
  path: '/admin/transactions/:id/simulate',
  access: { auth: 'session', roles: ['super_admin', 'tenant_admin'] },
  schema: {
    operationId: 'simulatePanelTransaction',
    summary: 'Simulate the outcome of a simulated transaction (panel)',
    description:
      'Marks a pending simulated charge paid or expired, as a test key can. super_admin (global) or tenant_admin (own tree); viewer 403 forbidden; outside the tree 404.',
    params: idParams,
    body: simulateBody,
    response: { 200: dataEnvelope(transactionView), ...errorResponses(400, 401, 403, 404, 409, 422, 429) },
  },
  examples: simulateExamples,
});

/** SPEC 4.6: the charge read again at its provider. */
export const refreshTransaction = operation({
  method: 'POST',
  path: '/v1/transactions/:id/refresh',
  access: { auth: 'api_key', scopes: ['transactions:read'], notForDeveloperKeys: true },
  schema: {
    operationId: 'refreshTransaction',
    summary: 'Refresh a transaction from its provider',
    description:
      'No body. Scopes transactions:read plus the method write scope. Simulator: a Pix past its deadline becomes expired, otherwise 200 unchanged; final states never reopen; `unknown` without provider_reference: 409 reconciliation_required. External provider: queried by its external id (a boleto and its Pix are one provider transaction: one read checks both; a slow boleto Pix is filled by a later read, never emitted again, in production only: a sandbox boleto has no payable Pix and both boleto_pix fields stay null; a boleto paid by both is paid_with boleto with duplicate_payment_at, and its Pix is refunded automatically, once); id, exact amount and internal reference must match, and a paid read whose AmountPayment is below the amount (or unreadable) proves no payment, else 502 provider_refresh_failed with error.transaction_id and the diagnostics of that query, state kept. `unknown` without provider_reference: the provider is asked by reference; exactly one charge of the same amount gives its id and status (200, also when only the id could be applied: the read is retried in the background); none, several or no answer: 409 reconciliation_required, state kept. Concurrent refreshes never overwrite a newer confirmation. Production needs the production control (403, 503). Never creates a charge.',
    params: idParams,
    response: {
      200: dataEnvelope(transactionView),
      ...errorResponses(401, 403, 404, 409, 429, 502, 503),
    },
  },
});

/** SPEC 4.8: a full refund, an idempotent change sent to the charge's provider. */
export const refundTransaction = operation({
  method: 'POST',
  path: '/v1/transactions/:id/refund',
  access: { auth: 'api_key', scopes: ['transactions:read'], idempotencyKey: true },
  schema: {
    operationId: 'refundTransaction',
    summary: 'Refund a paid transaction in full',
    description:
      "Requires Idempotency-Key (tenant scope, like creations). Scopes transactions:read plus the method write scope. Integral refund of a paid charge. One refund at a time per charge: while a refund of the same charge is being sent or is pending, a request with any key is 409 refund_in_progress and nothing is sent (a refunded charge answers 200 unchanged). Pix, and a boleto settled by its Pix: through the provider, 200 `refunded` with `refund.status` `succeeded`; the provider refuses: 502 provider_rejected with error.transaction_id and that answer's diagnostics, the charge stays paid with `refund.status` `failed` (a new request may try again); the answer is uncertain: 202, still paid, `refund.status` `pending`, and it is never sent again: asking again or the reconciler only reads the provider (if a day of reads still shows it paid, `refund.status` becomes `failed` and a new request may send it). A boleto paid by boleto needs `bank_account`, an account in the payer's own name (holder_document is the boleto payer's CPF or CNPJ, else 422): 202, still paid, `refund.status` `pending` until the money has gone, by a transfer through the provider where payouts are enabled or by the operator's panel otherwise; the account is kept encrypted, never in the charge history, and destroyed when the refund ends. Sending `bank_account` for anything else is 422. An unpaid charge is 409 conflict. Replays: 200 with `Idempotency-Replayed: true`. A descendant tenant's charge: 403 forbidden.",
    params: idParams,
    body: refundBody,
    response: {
      200: dataEnvelope(transactionView),
      202: dataEnvelope(transactionView),
      ...errorResponses(400, 401, 403, 404, 409, 422, 429, 502),
    },
  },
  examples: {
    request: { bank_account: refundBankAccount },
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
});

/** SPEC 4.8: a new due date for an open boleto, an idempotent change sent to the provider. */
export const updateBoletoDueDate = operation({
  method: 'PATCH',
  path: '/v1/transactions/:id/boleto',
  access: { auth: 'api_key', scopes: ['transactions:read', 'boleto:write'], idempotencyKey: true },
  schema: {
    operationId: 'updateBoletoDueDate',
    summary: 'Change the due date of an open boleto',
    description:
      "Requires Idempotency-Key. Scopes transactions:read plus boleto:write. Only a pending boleto (else 409 conflict); the date must be today to today+365 in America/Sao_Paulo (422 validation_error); the same date answers 200 unchanged. No new charge. One change at a time per boleto: while another change of the same boleto is being sent or awaits the provider's confirmation, a request with any key and any date is 409 change_in_progress and nothing is sent. Sent with the provider's change command: 200 with the new `boleto_due_date`, line, barcode and `boleto_pix_expires_at`; a simulated boleto with `cancel_after_due` gets its new `expires_at`. The provider refuses: 502 provider_rejected with error.transaction_id and diagnostics, date kept. The answer is uncertain: 202 with the date unchanged; the change is never sent again: asking again with the same date (any key) or the reconciler only reads the provider, and records the change once the provider shows it; if a day of reads still shows the old date, the change is dropped as not applied and may be requested again. Replays: 200 with `Idempotency-Replayed: true`.",
    params: idParams,
    body: dueDateBody,
    response: {
      200: dataEnvelope(transactionView),
      202: dataEnvelope(transactionView),
      ...errorResponses(400, 401, 403, 404, 409, 422, 429, 502),
    },
  },
  examples: {
    request: { due_date: EXAMPLE_NEW_DUE_DATE },
    responses: {
      200: { data: { ...boletoTransaction, boleto_due_date: EXAMPLE_NEW_DUE_DATE, updated_at: LATER } },
      // The provider's answer was uncertain: the date stays until the change is confirmed.
      202: { data: { ...boletoTransaction, updated_at: LATER } },
    },
  },
});

/** SPEC 4.3: a page of the key's charges. */
export const listTransactions = operation({
  method: 'GET',
  path: '/v1/transactions',
  access: { auth: 'api_key', scopes: ['transactions:read'] },
  // A page of up to 100 charges built from typed rows: no zod pass over each field (issue 14, B3).
  serializer: 'compiled',
  schema: {
    operationId: 'listTransactions',
    summary: "List transactions of the key's tenant (and, on request, its descendants), in the key's mode",
    description:
      'Newest first. Page forward by adding `limit` to `offset` until fewer than `limit` items return; `meta.count` is the page size, not a total.',
    querystring: publicTransactionQuery,
    response: { 200: listEnvelope(transactionView), ...errorResponses(401, 403, 404, 422) },
  },
});

/** The panel alias of SPEC 4.3, within the user's tree. */
export const listPanelTransactions = operation({
  method: 'GET',
  path: '/admin/transactions',
  access: { auth: 'session', roles: ['super_admin', 'tenant_admin', 'viewer'] },
  serializer: 'compiled',
  schema: {
    operationId: 'listPanelTransactions',
    summary: "List transactions in the user's tree (every tenant for a super_admin)",
    description:
      'Every panel role reads, within its tree. Production by default (`livemode=false` for test mode). A `tenant_id` outside the tree is 404.',
    querystring: panelTransactionQuery,
    response: { 200: listEnvelope(transactionView), ...errorResponses(401, 403, 404, 422) },
  },
});

/** Issue 22 item 4: the refunds a person completes (super_admin). */
export const listRefundsAwaitingOperator = operation({
  method: 'GET',
  path: '/admin/refunds',
  access: operatorAccess,
  schema: {
    operationId: 'listRefundsAwaitingOperator',
    summary: 'List refunds awaiting an operator (panel)',
    description:
      'Refunds of boletos paid by boleto that a person must complete: not paid out through the provider, or paid out and returned by the bank. Oldest first. super_admin only.',
    querystring: refundQueueQuery,
    response: { 200: listEnvelope(refundQueueItem), ...errorResponses(401, 403, 422) },
  },
});

/** The payer's bank account of a pending refund; each read is recorded first. */
export const readRefundBankAccount = operation({
  method: 'GET',
  path: '/admin/refunds/:id/bank-account',
  access: operatorAccess,
  schema: {
    operationId: 'readRefundBankAccount',
    summary: "Read the payer's bank account of a pending refund (panel)",
    description:
      "The account the payer gave for the refund of a boleto paid by boleto. super_admin only; every read is recorded on the charge's history before the account is answered. 404 once the refund ended or 90 days passed (the account is destroyed).",
    params: idParams,
    response: { 200: dataEnvelope(refundBankAccountView), ...errorResponses(401, 403, 404, 409) },
  },
});

/** A refund completed outside the provider, with its evidence. */
export const completeRefund = operation({
  method: 'POST',
  path: '/admin/refunds/:id/complete',
  access: operatorAccess,
  schema: {
    operationId: 'completeRefund',
    summary: 'Complete a refund with its evidence (panel)',
    description:
      'Records that a person returned the whole amount to the payer outside the provider: the evidence (end-to-end id or receipt, date, amount). The charge becomes refunded and the bank account is destroyed. Only a refund awaiting an operator (else 409 conflict; a second completion is 409); the amount must be the charge amount (422). super_admin only.',
    params: idParams,
    body: completeRefundBody,
    response: { 200: dataEnvelope(transactionView), ...errorResponses(400, 401, 403, 404, 409, 422) },
  },
  examples: {
    request: {
      evidence: { reference: 'E00000000202611241530abcdef123456', paid_on: '2026-11-24', amount: 48750 },
    },
  },
});

/** A refund awaiting an operator closed without money returned. */
export const cancelRefund = operation({
  method: 'POST',
  path: '/admin/refunds/:id/cancel',
  access: operatorAccess,
  schema: {
    operationId: 'cancelRefund',
    summary: 'Cancel a refund awaiting an operator (panel)',
    description:
      'Closes a refund awaiting an operator without returning money, with a reason: refund.status becomes failed, the charge stays paid, the bank account is destroyed. A new refund may then be requested. Only a refund awaiting an operator (else 409 conflict). super_admin only.',
    params: idParams,
    body: cancelRefundBody,
    response: { 200: dataEnvelope(transactionView), ...errorResponses(400, 401, 403, 404, 409, 422) },
  },
  examples: { request: { reason: 'O pagador pediu o valor como crédito na próxima mensalidade.' } },
});
