import { z } from 'zod';
import { apiKeyListQuery, apiKeyView, createApiKeyBody, issuedKey } from '../../src/contract/api-keys.ts';
import { auditEntry, auditQuery } from '../../src/contract/audit.ts';
import { chargePageParams } from '../../src/contract/charge-page.ts';
import { newBoletoBody, newPixBody, panelBoletoBody } from '../../src/contract/charges.ts';
import {
  costCenterListQuery,
  costCenterView,
  createCostCenterBody,
  updateCostCenterBody,
} from '../../src/contract/cost-centers.ts';
import { dataEnvelope, idParams, listEnvelope, pageQuery } from '../../src/contract/envelopes.ts';
import { healthBody, readyBody } from '../../src/contract/health.ts';
import { createProviderBody, providerDto, updateProviderBody } from '../../src/contract/providers.ts';
import {
  cancelRefundBody,
  completeRefundBody,
  refundBankAccountView,
  refundQueueItem,
  refundQueueQuery,
} from '../../src/contract/refunds.ts';
import { createRuleBody, ruleDto, ruleListQuery, updateRuleBody } from '../../src/contract/rules.ts';
import { loginBody, sessionCreated } from '../../src/contract/sessions.ts';
import { paymentSettings, updatePaymentSettingsBody } from '../../src/contract/settings.ts';
import { adminSummary, summaryQuery } from '../../src/contract/summary.ts';
import {
  tenantBody,
  tenantDto,
  tenantListQuery,
  tenantTypeBody,
  tenantTypeDto,
} from '../../src/contract/tenants.ts';
import {
  dueDateBody,
  panelTransactionQuery,
  publicTransactionQuery,
  refundBody,
  simulateBody,
  transactionEvent,
  transactionRequestView,
  transactionView,
} from '../../src/contract/transactions.ts';
import { newPasswordBody, newUserBody, userDto } from '../../src/contract/users.ts';
import {
  attemptDto,
  callbackSecretQuery,
  callbackSecretView,
  deliveryDto,
  deliveryListQuery,
} from '../../src/contract/webhook-deliveries.ts';
import {
  createdDto,
  createEndpointBody,
  endpointDto,
  endpointListQuery,
  secretsDto,
  updateEndpointBody,
} from '../../src/contract/webhook-endpoints.ts';

/**
 * Every operation of the gateway (SPEC 9: one SDK method per operation), keyed by the operationId of
 * /openapi.json. The request schemas are the server's own (src/http/contract, src/http/schemas.ts), so a
 * request the SDK lets through is one the route's schema accepts; test/drift.test.ts fails when the served
 * document has an operation missing here, or one whose method, path, credential or Idempotency-Key differs.
 */
export interface Operation {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** OpenAPI path template; `{name}` segments are the method's leading string arguments, in order. */
  path: string;
  /** `api_key`: `X-API-Key` (public API); `session`: `Authorization: Bearer` (panel API); `none`. */
  auth: 'api_key' | 'session' | 'none';
  /** SPEC 4 common rules: creations require the Idempotency-Key header; the SDK never makes one up. */
  idempotency?: 'required' | 'optional';
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The body may be left out (refund without a bank account). */
  bodyOptional?: true;
  /** The 2xx answer: a JSON schema (for the result type only; answers are not re-validated), or raw. */
  response: z.ZodType | 'text' | 'bytes' | 'empty';
}

const op = <const O extends Operation>(o: O) => o;

/** The strict creation bodies (SPEC 9 "createPix is strict"): phone and address required, as for any new charge. */
const panelNewBoletoBody = newBoletoBody.extend({ tenant_id: panelBoletoBody.shape.tenant_id });

/*
 * The password rule (12 to 72 bytes) lives with the identity commands, which load bcrypt: the SDK checks the
 * rest of these bodies and leaves that one rule to the server (src/http/contract/users.ts).
 */
const userBody = newUserBody(z.string());
const passwordBody = newPasswordBody(z.string());

const transaction = dataEnvelope(transactionView);
const idOnly = { params: idParams };

export const OPERATIONS = {
  // Infrastructure (SPEC 4.14)
  getHealth: op({ method: 'GET', path: '/health', auth: 'none', response: healthBody }),
  getReadiness: op({ method: 'GET', path: '/ready', auth: 'none', response: readyBody }),

  // Panel sessions (SPEC 5.6, 5.9)
  createSession: op({
    method: 'POST',
    path: '/admin/sessions',
    auth: 'none',
    body: loginBody,
    response: dataEnvelope(sessionCreated),
  }),
  deleteCurrentSession: op({
    method: 'DELETE',
    path: '/admin/sessions/current',
    auth: 'session',
    response: 'empty',
  }),

  // Providers, rules and the production payments control (SPEC 2.7, 2.8, 4.14)
  createProvider: op({
    method: 'POST',
    path: '/admin/providers',
    auth: 'session',
    body: createProviderBody,
    response: dataEnvelope(providerDto),
  }),
  listProviders: op({
    method: 'GET',
    path: '/admin/providers',
    auth: 'session',
    query: pageQuery,
    response: listEnvelope(providerDto),
  }),
  getProvider: op({
    method: 'GET',
    path: '/admin/providers/{id}',
    auth: 'session',
    ...idOnly,
    response: dataEnvelope(providerDto),
  }),
  updateProvider: op({
    method: 'PATCH',
    path: '/admin/providers/{id}',
    auth: 'session',
    ...idOnly,
    body: updateProviderBody,
    response: dataEnvelope(providerDto),
  }),
  createRoutingRule: op({
    method: 'POST',
    path: '/admin/rules',
    auth: 'session',
    body: createRuleBody,
    response: dataEnvelope(ruleDto),
  }),
  listRoutingRules: op({
    method: 'GET',
    path: '/admin/rules',
    auth: 'session',
    query: ruleListQuery,
    response: listEnvelope(ruleDto),
  }),
  updateRoutingRule: op({
    method: 'PATCH',
    path: '/admin/rules/{id}',
    auth: 'session',
    ...idOnly,
    body: updateRuleBody,
    response: dataEnvelope(ruleDto),
  }),
  getPaymentSettings: op({
    method: 'GET',
    path: '/admin/settings/payments',
    auth: 'session',
    response: dataEnvelope(paymentSettings),
  }),
  updatePaymentSettings: op({
    method: 'PATCH',
    path: '/admin/settings/payments',
    auth: 'session',
    body: updatePaymentSettingsBody,
    response: dataEnvelope(paymentSettings),
  }),

  // Reports (SPEC 4.14)
  listAuditEntries: op({
    method: 'GET',
    path: '/admin/audit',
    auth: 'session',
    query: auditQuery,
    response: listEnvelope(auditEntry),
  }),
  getAdminSummary: op({
    method: 'GET',
    path: '/admin/summary',
    auth: 'session',
    query: summaryQuery,
    response: dataEnvelope(adminSummary),
  }),

  // API keys (SPEC 5.2 to 5.4)
  createApiKey: op({
    method: 'POST',
    path: '/admin/api-keys',
    auth: 'session',
    idempotency: 'required',
    body: createApiKeyBody,
    response: dataEnvelope(issuedKey),
  }),
  listApiKeys: op({
    method: 'GET',
    path: '/admin/api-keys',
    auth: 'session',
    query: apiKeyListQuery,
    response: listEnvelope(apiKeyView),
  }),
  revokeApiKey: op({
    method: 'DELETE',
    path: '/admin/api-keys/{id}',
    auth: 'session',
    ...idOnly,
    response: dataEnvelope(apiKeyView),
  }),

  // Tenant types, tenants and users (SPEC 1, 2.7, 5.7)
  createTenantType: op({
    method: 'POST',
    path: '/admin/tenant-types',
    auth: 'session',
    idempotency: 'required',
    body: tenantTypeBody,
    response: dataEnvelope(tenantTypeDto),
  }),
  listTenantTypes: op({
    method: 'GET',
    path: '/admin/tenant-types',
    auth: 'session',
    query: pageQuery,
    response: listEnvelope(tenantTypeDto),
  }),
  createTenant: op({
    method: 'POST',
    path: '/admin/tenants',
    auth: 'session',
    idempotency: 'required',
    body: tenantBody,
    response: dataEnvelope(tenantDto),
  }),
  listTenants: op({
    method: 'GET',
    path: '/admin/tenants',
    auth: 'session',
    query: tenantListQuery,
    response: listEnvelope(tenantDto),
  }),
  getTenant: op({
    method: 'GET',
    path: '/admin/tenants/{id}',
    auth: 'session',
    ...idOnly,
    response: dataEnvelope(tenantDto),
  }),
  suspendTenant: op({
    method: 'POST',
    path: '/admin/tenants/{id}/suspend',
    auth: 'session',
    ...idOnly,
    response: dataEnvelope(tenantDto),
  }),
  reactivateTenant: op({
    method: 'POST',
    path: '/admin/tenants/{id}/reactivate',
    auth: 'session',
    ...idOnly,
    response: dataEnvelope(tenantDto),
  }),
  createUser: op({
    method: 'POST',
    path: '/admin/users',
    auth: 'session',
    idempotency: 'required',
    body: userBody,
    response: dataEnvelope(userDto),
  }),
  listUsers: op({
    method: 'GET',
    path: '/admin/users',
    auth: 'session',
    query: pageQuery,
    response: listEnvelope(userDto),
  }),
  suspendUser: op({
    method: 'POST',
    path: '/admin/users/{id}/suspend',
    auth: 'session',
    ...idOnly,
    response: dataEnvelope(userDto),
  }),
  reactivateUser: op({
    method: 'POST',
    path: '/admin/users/{id}/reactivate',
    auth: 'session',
    ...idOnly,
    response: dataEnvelope(userDto),
  }),
  setUserPassword: op({
    method: 'POST',
    path: '/admin/users/{id}/password',
    auth: 'session',
    ...idOnly,
    body: passwordBody,
    response: 'empty',
  }),

  // Cost centers (SPEC 4.12)
  listCostCenters: op({
    method: 'GET',
    path: '/v1/cost-centers',
    auth: 'api_key',
    query: costCenterListQuery,
    response: listEnvelope(costCenterView),
  }),
  createCostCenter: op({
    method: 'POST',
    path: '/v1/cost-centers',
    auth: 'api_key',
    idempotency: 'optional',
    body: createCostCenterBody,
    response: dataEnvelope(costCenterView),
  }),
  getCostCenter: op({
    method: 'GET',
    path: '/v1/cost-centers/{id}',
    auth: 'api_key',
    ...idOnly,
    response: dataEnvelope(costCenterView),
  }),
  updateCostCenter: op({
    method: 'PATCH',
    path: '/v1/cost-centers/{id}',
    auth: 'api_key',
    ...idOnly,
    body: updateCostCenterBody,
    response: dataEnvelope(costCenterView),
  }),

  // Webhook endpoints and deliveries (SPEC 6; panel only)
  createWebhookEndpoint: op({
    method: 'POST',
    path: '/admin/webhook-endpoints',
    auth: 'session',
    idempotency: 'required',
    body: createEndpointBody,
    response: dataEnvelope(createdDto),
  }),
  listWebhookEndpoints: op({
    method: 'GET',
    path: '/admin/webhook-endpoints',
    auth: 'session',
    query: endpointListQuery,
    response: listEnvelope(endpointDto),
  }),
  getWebhookEndpoint: op({
    method: 'GET',
    path: '/admin/webhook-endpoints/{id}',
    auth: 'session',
    ...idOnly,
    response: dataEnvelope(endpointDto),
  }),
  updateWebhookEndpoint: op({
    method: 'PATCH',
    path: '/admin/webhook-endpoints/{id}',
    auth: 'session',
    ...idOnly,
    body: updateEndpointBody,
    response: dataEnvelope(endpointDto),
  }),
  deleteWebhookEndpoint: op({
    method: 'DELETE',
    path: '/admin/webhook-endpoints/{id}',
    auth: 'session',
    ...idOnly,
    response: 'empty',
  }),
  getWebhookEndpointSecret: op({
    method: 'GET',
    path: '/admin/webhook-endpoints/{id}/secret',
    auth: 'session',
    ...idOnly,
    response: dataEnvelope(secretsDto),
  }),
  rotateWebhookEndpointSecret: op({
    method: 'POST',
    path: '/admin/webhook-endpoints/{id}/rotate-secret',
    auth: 'session',
    ...idOnly,
    response: dataEnvelope(secretsDto),
  }),
  listWebhookDeliveries: op({
    method: 'GET',
    path: '/admin/webhook-deliveries',
    auth: 'session',
    query: deliveryListQuery,
    response: listEnvelope(deliveryDto),
  }),
  getWebhookDelivery: op({
    method: 'GET',
    path: '/admin/webhook-deliveries/{id}',
    auth: 'session',
    ...idOnly,
    response: dataEnvelope(deliveryDto.extend({ attempts_log: z.array(attemptDto) })),
  }),
  resendWebhookDelivery: op({
    method: 'POST',
    path: '/admin/webhook-deliveries/{id}/resend',
    auth: 'session',
    ...idOnly,
    response: dataEnvelope(deliveryDto),
  }),
  getWebhookCallbackSecret: op({
    method: 'GET',
    path: '/admin/webhook-callback-secret',
    auth: 'session',
    query: callbackSecretQuery,
    response: dataEnvelope(callbackSecretView),
  }),

  // Charges (SPEC 4.1, 4.2)
  createPix: op({
    method: 'POST',
    path: '/v1/pix',
    auth: 'api_key',
    idempotency: 'required',
    body: newPixBody,
    response: transaction,
  }),
  createBoleto: op({
    method: 'POST',
    path: '/v1/boleto',
    auth: 'api_key',
    idempotency: 'required',
    body: newBoletoBody,
    response: transaction,
  }),
  createPanelBoleto: op({
    method: 'POST',
    path: '/admin/boleto',
    auth: 'session',
    idempotency: 'required',
    body: panelNewBoletoBody,
    response: transaction,
  }),

  // Transactions (SPEC 4.3 to 4.8)
  getTransaction: op({
    method: 'GET',
    path: '/v1/transactions/{id}',
    auth: 'api_key',
    ...idOnly,
    response: transaction,
  }),
  getTransactionRequest: op({
    method: 'GET',
    path: '/v1/transactions/{id}/request',
    auth: 'api_key',
    ...idOnly,
    response: dataEnvelope(transactionRequestView),
  }),
  listTransactions: op({
    method: 'GET',
    path: '/v1/transactions',
    auth: 'api_key',
    query: publicTransactionQuery,
    response: listEnvelope(transactionView),
  }),
  listPanelTransactions: op({
    method: 'GET',
    path: '/admin/transactions',
    auth: 'session',
    query: panelTransactionQuery,
    response: listEnvelope(transactionView),
  }),
  listPanelTransactionEvents: op({
    method: 'GET',
    path: '/admin/transactions/{id}/events',
    auth: 'session',
    ...idOnly,
    response: dataEnvelope(z.array(transactionEvent)),
  }),
  getPanelTransactionRequest: op({
    method: 'GET',
    path: '/admin/transactions/{id}/request',
    auth: 'session',
    ...idOnly,
    response: dataEnvelope(transactionRequestView),
  }),
  simulateTransaction: op({
    method: 'POST',
    path: '/v1/transactions/{id}/simulate',
    auth: 'api_key',
    ...idOnly,
    body: simulateBody,
    response: transaction,
  }),
  simulatePanelTransaction: op({
    method: 'POST',
    path: '/admin/transactions/{id}/simulate',
    auth: 'session',
    ...idOnly,
    body: simulateBody,
    response: transaction,
  }),
  refreshTransaction: op({
    method: 'POST',
    path: '/v1/transactions/{id}/refresh',
    auth: 'api_key',
    ...idOnly,
    response: transaction,
  }),
  refundTransaction: op({
    method: 'POST',
    path: '/v1/transactions/{id}/refund',
    auth: 'api_key',
    idempotency: 'required',
    ...idOnly,
    body: refundBody,
    bodyOptional: true,
    response: transaction,
  }),
  updateBoletoDueDate: op({
    method: 'PATCH',
    path: '/v1/transactions/{id}/boleto',
    auth: 'api_key',
    idempotency: 'required',
    ...idOnly,
    body: dueDateBody,
    response: transaction,
  }),

  // Refunds awaiting an operator (panel): a boleto paid by boleto refunded by a person's transfer.
  listRefundsAwaitingOperator: op({
    method: 'GET',
    path: '/admin/refunds',
    auth: 'session',
    query: refundQueueQuery,
    response: listEnvelope(refundQueueItem),
  }),
  readRefundBankAccount: op({
    method: 'GET',
    path: '/admin/refunds/{id}/bank-account',
    auth: 'session',
    ...idOnly,
    response: dataEnvelope(refundBankAccountView),
  }),
  completeRefund: op({
    method: 'POST',
    path: '/admin/refunds/{id}/complete',
    auth: 'session',
    ...idOnly,
    body: completeRefundBody,
    response: transaction,
  }),
  cancelRefund: op({
    method: 'POST',
    path: '/admin/refunds/{id}/cancel',
    auth: 'session',
    ...idOnly,
    body: cancelRefundBody,
    response: transaction,
  }),

  // Payer pages (SPEC 2.2 `document_url`, `boleto_url`): the signed URL is the access
  getChargePage: op({
    method: 'GET',
    path: '/cobranca/{id}/{signature}',
    auth: 'none',
    params: chargePageParams,
    response: 'text',
  }),
  getBoletoPdf: op({
    method: 'GET',
    path: '/cobranca/{id}/{signature}/boleto.pdf',
    auth: 'none',
    params: chargePageParams,
    response: 'bytes',
  }),
} as const satisfies Record<string, Operation>;

export type Operations = typeof OPERATIONS;
export type OperationId = keyof Operations;
