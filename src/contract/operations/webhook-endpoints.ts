import { z } from 'zod';
import type { Role } from '../../aggregates/access.ts';
import { dataEnvelope, errorEnvelope, idParams, listEnvelope } from '../envelopes.ts';
import { TENANT, webhookEndpoint } from '../examples.ts';
import { operation } from '../operation.ts';
import {
  createdDto,
  createEndpointBody,
  endpointDto,
  endpointListQuery,
  secretsDto,
  updateEndpointBody,
} from '../webhook-endpoints.ts';

/**
 * SPEC 5.7 / 6 (docs/decisions.md "Webhooks"): registering endpoints and viewing the signing secret are
 * panel-only. super_admin: any tenant; tenant_admin: its own tree; viewer: list and read (never the secret).
 * Outside the caller's tree is 404 not_found. The same roles read and resend deliveries (webhook-deliveries.ts).
 */
export const WEBHOOK_READERS = ['super_admin', 'tenant_admin', 'viewer'] as const satisfies readonly Role[];
export const WEBHOOK_WRITERS = ['super_admin', 'tenant_admin'] as const satisfies readonly Role[];

export const createWebhookEndpoint = operation({
  method: 'POST',
  path: '/admin/webhook-endpoints',
  access: { auth: 'session', roles: WEBHOOK_WRITERS, idempotencyKey: true },
  schema: {
    operationId: 'createWebhookEndpoint',
    summary: 'Register a webhook endpoint (the secret is shown in this answer)',
    description:
      'Panel only. Requires Idempotency-Key: a replay with the same key and body answers 200 with `Idempotency-Replayed: true` and the endpoint without its secret; another body is 409 idempotency_conflict. The endpoint receives every event of the tenant in its mode. A tenant outside your tree is 404.',
    body: createEndpointBody,
    response: {
      200: dataEnvelope(createdDto).meta({
        description: 'Replay: the same endpoint, without its secret',
      }),
      201: dataEnvelope(createdDto).meta({ description: 'Registered; `secret` signs its deliveries' }),
      404: errorEnvelope,
      409: errorEnvelope,
    },
  },
  examples: {
    request: {
      tenant_id: TENANT,
      url: 'https://loja.example.com/webhooks/calebe',
      mode: 'test',
      enabled: true,
    },
    responses: { 200: { data: webhookEndpoint } },
  },
});

export const listWebhookEndpoints = operation({
  method: 'GET',
  path: '/admin/webhook-endpoints',
  access: { auth: 'session', roles: WEBHOOK_READERS },
  schema: {
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints of your tree, newest first (never the secret)',
    querystring: endpointListQuery,
    response: { 200: listEnvelope(endpointDto), 404: errorEnvelope },
  },
});

export const getWebhookEndpoint = operation({
  method: 'GET',
  path: '/admin/webhook-endpoints/:id',
  access: { auth: 'session', roles: WEBHOOK_READERS },
  schema: {
    operationId: 'getWebhookEndpoint',
    summary: 'Read a webhook endpoint (never the secret)',
    params: idParams,
    response: { 200: dataEnvelope(endpointDto), 404: errorEnvelope },
  },
});

export const getWebhookEndpointSecret = operation({
  method: 'GET',
  path: '/admin/webhook-endpoints/:id/secret',
  access: { auth: 'session', roles: WEBHOOK_WRITERS },
  schema: {
    operationId: 'getWebhookEndpointSecret',
    summary: 'View the signing secret (and the previous one within 24 hours of a rotation)',
    description: 'Panel only; super_admin and tenant_admin of the tree. Viewers get 403.',
    params: idParams,
    response: { 200: dataEnvelope(secretsDto), 404: errorEnvelope },
  },
});

export const rotateWebhookEndpointSecret = operation({
  method: 'POST',
  path: '/admin/webhook-endpoints/:id/rotate-secret',
  access: { auth: 'session', roles: WEBHOOK_WRITERS },
  schema: {
    operationId: 'rotateWebhookEndpointSecret',
    summary: 'Rotate the signing secret; the previous one stays valid for 24 hours',
    description:
      'Deliveries are signed with both secrets until previous_expires_at. Rotating again within the window replaces the previous secret with the one just rotated out. No body.',
    params: idParams,
    response: { 200: dataEnvelope(secretsDto), 404: errorEnvelope },
  },
  examples: {
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
});

export const updateWebhookEndpoint = operation({
  method: 'PATCH',
  path: '/admin/webhook-endpoints/:id',
  access: { auth: 'session', roles: WEBHOOK_WRITERS },
  schema: {
    operationId: 'updateWebhookEndpoint',
    summary: 'Change a webhook endpoint: url and/or enabled',
    description:
      'Tenant and mode are fixed. Enabling again an endpoint disabled after a 410 Gone resumes deliveries. An empty body is 422.',
    params: idParams,
    body: updateEndpointBody,
    response: { 200: dataEnvelope(endpointDto), 404: errorEnvelope },
  },
  examples: { request: { enabled: true } },
});

export const deleteWebhookEndpoint = operation({
  method: 'DELETE',
  path: '/admin/webhook-endpoints/:id',
  access: { auth: 'session', roles: WEBHOOK_WRITERS },
  schema: {
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint (final: it is 404 afterwards)',
    params: idParams,
    response: { 204: z.null().meta({ description: 'Deleted' }), 404: errorEnvelope },
  },
});
