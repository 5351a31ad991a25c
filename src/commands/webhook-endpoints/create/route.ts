import { z } from 'zod';
import { isDomainError } from '../../../aggregates/decider.ts';
import { WEBHOOK_MODES, type WebhookMode, webhookEndpoint } from '../../../aggregates/webhook-endpoint.ts';
import { createWebhookEndpoint } from '../../../contract/operations/webhook-endpoints.ts';
import { newId } from '../../../ids.ts';
import { bind, createdOrReplayed, replayed } from '../../bind.ts';
import { claimPanelCreation } from '../../panel-claim.ts';
import { requireTenantInTree } from '../../tenancy.ts';
import { checkEndpointUrl } from '../destination.ts';
import { loadWebhookEndpoint, webhookEndpointDeps, webhookEndpointView } from '../endpoint.ts';
import { requireWebhookSecretsKey } from '../secrets.ts';
import { registerWebhookEndpoint } from './handler.ts';

type CreateRequest = { tenant_id: string; url: string; mode: WebhookMode; enabled: boolean };

/** What an idempotency claim of this route carries to complete a registration (never the secret). */
const claimPayload = z.object({
  tenant_id: z.string(),
  url: z.string(),
  mode: z.enum(WEBHOOK_MODES),
  enabled: z.boolean(),
});

/**
 * Registers an endpoint under the Idempotency-Key (SPEC 6, 5.7, 7): 201 with its secret; a replay is 200
 * with `Idempotency-Replayed: true` and the endpoint without it.
 */
export const createRoute = bind(createWebhookEndpoint, async (call, ctx) => {
  const deps = webhookEndpointDeps(ctx);
  const principal = call.session();
  const idempotencyKey = call.idempotencyKey();
  const req: CreateRequest = {
    tenant_id: call.body.tenant_id,
    url: call.body.url,
    mode: call.body.mode,
    enabled: call.body.enabled,
  };
  await requireTenantInTree(ctx.db, principal, req.tenant_id);
  checkEndpointUrl(ctx.config, req.url);
  // Refuse what registration would refuse before the key is claimed: a claim must be completable.
  await requireWebhookSecretsKey(ctx.config);
  const precheck = webhookEndpoint.decide(
    {
      kind: 'register',
      endpointId: 'whe_precheck',
      tenantId: req.tenant_id,
      url: req.url,
      mode: req.mode,
      enabled: req.enabled,
      secretSealed: 'precheck',
    },
    webhookEndpoint.initialState,
    { now: ctx.now() },
  );
  if (isDomainError(precheck)) throw precheck;

  const metadata = call.metadata();
  const { first, claim } = await claimPanelCreation(
    ctx,
    createWebhookEndpoint,
    { principal, key: idempotencyKey },
    { body: req, resourceId: newId('whe'), payload: { ...req } },
    metadata,
  );
  const endpointId = claim.resource_id;
  if (!first) {
    const existing = await loadWebhookEndpoint(deps, endpointId);
    if (existing) {
      return replayed(200, { data: webhookEndpointView(existing, ctx.now()) });
    }
  }
  // First request, or a replay finding a claim whose endpoint was never registered (the process died
  // between the two appends): the secret was never shown, so showing it now is the first showing. A
  // claim whose endpoint was deleted since is 404 (deletion is final).
  const claimed = claimPayload.parse(claim.payload);
  const r = await registerWebhookEndpoint(
    deps,
    {
      endpointId,
      tenantId: claimed.tenant_id,
      url: claimed.url,
      mode: claimed.mode,
      enabled: claimed.enabled,
    },
    metadata,
  );
  const body = { data: r.secret === undefined ? r.endpoint : { ...r.endpoint, secret: r.secret } };
  return createdOrReplayed(r.created, body);
});
