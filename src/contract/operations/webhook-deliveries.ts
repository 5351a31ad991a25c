import { z } from 'zod';
import { dataEnvelope, errorResponses, idParams, listEnvelope } from '../envelopes.ts';
import { TENANT, webhookDelivery } from '../examples.ts';
import { operation } from '../operation.ts';
import {
  attemptDto,
  callbackSecretQuery,
  callbackSecretView,
  deliveryDto,
  deliveryListQuery,
} from '../webhook-deliveries.ts';
import { WEBHOOK_READERS, WEBHOOK_WRITERS } from './webhook-endpoints.ts';

/*
 * The webhook endpoints' roles (SPEC 6: "viewing the signing secret and re-sending deliveries are panel-only
 * operations"): every panel role reads within its tree; resend and the secret: super_admin and tenant_admin.
 * Outside the tree: 404.
 */
export const listWebhookDeliveries = operation({
  method: 'GET',
  path: '/admin/webhook-deliveries',
  access: { auth: 'session', roles: WEBHOOK_READERS },
  schema: {
    operationId: 'listWebhookDeliveries',
    summary: 'List webhook deliveries of your tree, newest first',
    description:
      'Filters: tenant_id (a tenant of your tree), endpoint_id, transaction_id, status (pending, delivered, failed, cancelled).',
    querystring: deliveryListQuery,
    response: { 200: listEnvelope(deliveryDto), ...errorResponses(401, 403, 404, 422) },
  },
});

export const getWebhookDelivery = operation({
  method: 'GET',
  path: '/admin/webhook-deliveries/:id',
  access: { auth: 'session', roles: WEBHOOK_READERS },
  schema: {
    operationId: 'getWebhookDelivery',
    summary: 'A webhook delivery with every attempt',
    params: idParams,
    response: {
      200: dataEnvelope(deliveryDto.extend({ attempts_log: z.array(attemptDto) })),
      ...errorResponses(401, 403, 404),
    },
  },
  examples: {
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
});

export const resendWebhookDelivery = operation({
  method: 'POST',
  path: '/admin/webhook-deliveries/:id/resend',
  access: { auth: 'session', roles: WEBHOOK_WRITERS },
  schema: {
    operationId: 'resendWebhookDelivery',
    summary: 'Send a delivery again',
    description:
      "Queues one more attempt now, with the same `webhook-id` and body, whatever the delivery's status. If it fails, the retry schedule continues from the attempts already made (an exhausted delivery becomes `failed` again; resend again later). The endpoint must be enabled when the attempt runs (else the delivery ends `cancelled`).",
    params: idParams,
    response: { 200: dataEnvelope(deliveryDto), ...errorResponses(401, 403, 404) },
  },
});

export const getWebhookCallbackSecret = operation({
  method: 'GET',
  path: '/admin/webhook-callback-secret',
  access: { auth: 'session', roles: WEBHOOK_WRITERS },
  schema: {
    operationId: 'getWebhookCallbackSecret',
    summary: "The secret signing deliveries to a tenant's callback_url addresses",
    description:
      "One secret per tenant and mode, derived on the server; deliveries to a charge's `callback_url` carry Standard Webhooks signatures made with it. super_admin any tenant, tenant_admin its tree.",
    querystring: callbackSecretQuery,
    response: {
      200: dataEnvelope(callbackSecretView),
      ...errorResponses(401, 403, 404, 422),
    },
  },
  examples: {
    responses: {
      200: { data: { tenant_id: TENANT, mode: 'test', secret: 'whsec_p2Xb7Tq9Lm4Kc8Vz1Nw6Rj3Hd5Gf0SaQ' } },
    },
  },
});
