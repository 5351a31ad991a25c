import { z } from 'zod';
import type { Role } from '../../aggregates/access.ts';
import { isDomainError } from '../../aggregates/decider.ts';
import { WEBHOOK_MODES, type WebhookMode, webhookEndpoint } from '../../aggregates/webhook-endpoint.ts';
import type { AppContext } from '../../commands/context.ts';
import { claimIdempotencyKey } from '../../commands/idempotency.ts';
import { isInTree, requireTenantInTree, tenantInTreeSql } from '../../commands/tenancy.ts';
import {
  deleteWebhookEndpoint,
  type LoadedWebhookEndpoint,
  loadWebhookEndpoint,
  registerWebhookEndpoint,
  requireWebhookSecretsKey,
  revealWebhookSecrets,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  type WebhookEndpointView,
  webhookEndpointDeps,
  webhookEndpointView,
} from '../../commands/webhook-endpoints.ts';
import {
  dataEnvelope,
  errorEnvelope,
  IDEMPOTENCY_REPLAYED,
  idParams,
  listEnvelope,
} from '../../contract/envelopes.ts';
import {
  createdDto,
  createEndpointBody,
  endpointDto,
  endpointListQuery,
  secretsDto,
  updateEndpointBody,
} from '../../contract/webhook-endpoints.ts';
import { newId } from '../../ids.ts';
import { checkDestinationSyntax, destinationPolicy } from '../../webhooks/ssrf-guard.ts';
import { idempotencyKeyOf, type SessionPrincipal, sessionPrincipal } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { eventMetadata } from '../request-metadata.ts';
import type { HttpServer } from '../server.ts';

/**
 * SPEC 5.7 / 6 (docs/decisions.md "Webhooks"): registering endpoints and viewing the signing secret are
 * panel-only. super_admin: any tenant; tenant_admin: its own tree; viewer: list and read (never the secret).
 * Outside the caller's tree is 404 not_found.
 */
const READERS = ['super_admin', 'tenant_admin', 'viewer'] as const satisfies readonly Role[];
const WRITERS = ['super_admin', 'tenant_admin'] as const satisfies readonly Role[];

const ROUTE = '/admin/webhook-endpoints';

type CreateRequest = { tenant_id: string; url: string; mode: WebhookMode; enabled: boolean };

/** What an idempotency claim of this route carries to complete a registration (never the secret). */
const claimPayload = z.object({
  tenant_id: z.string(),
  url: z.string(),
  mode: z.enum(WEBHOOK_MODES),
  enabled: z.boolean(),
});

/** Panel registry of webhook endpoints (SPEC 6, 5.7, 7). */
export function registerWebhookEndpointRoutes(app: HttpServer, ctx: AppContext): void {
  const deps = webhookEndpointDeps(ctx);

  /** The destination policy (src/webhooks/ssrf-guard.ts), without DNS: 422 validation_error on `url`. */
  function checkUrl(value: string): void {
    const check = checkDestinationSyntax(value, destinationPolicy(ctx.config));
    if (!check.ok) throw new ApiError('validation_error', `Invalid url: ${check.reason}.`, { param: 'url' });
  }

  /** The endpoint if it exists and its tenant lies in the caller's tree; else 404 (ids are not confirmed). */
  async function loadInTree(principal: SessionPrincipal, id: string): Promise<LoadedWebhookEndpoint> {
    const loaded = await loadWebhookEndpoint(deps, id);
    if (!loaded || !(await isInTree(ctx.db, principal, loaded.facts.tenantId))) {
      throw new ApiError('not_found', 'The webhook endpoint does not exist.');
    }
    return loaded;
  }

  app.post(
    ROUTE,
    {
      config: { access: { auth: 'session', roles: WRITERS, idempotencyKey: true } },
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
    },
    async (request, reply) => {
      const principal = sessionPrincipal(request);
      const idempotencyKey = idempotencyKeyOf(request);
      const req: CreateRequest = {
        tenant_id: request.body.tenant_id,
        url: request.body.url,
        mode: request.body.mode,
        enabled: request.body.enabled,
      };
      await requireTenantInTree(ctx.db, principal, req.tenant_id);
      checkUrl(req.url);
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

      const metadata = eventMetadata(request);
      const { first, claim } = await claimIdempotencyKey(
        ctx,
        {
          scope: principal.userId,
          key: idempotencyKey,
          method: 'POST',
          route: ROUTE,
          body: req,
          resourceId: newId('whe'),
          payload: { ...req },
        },
        metadata,
      );
      const endpointId = claim.resource_id;
      if (!first) {
        const existing = await loadWebhookEndpoint(deps, endpointId);
        if (existing) {
          reply.header(IDEMPOTENCY_REPLAYED, 'true');
          return reply.code(200).send({ data: webhookEndpointView(existing, ctx.now()) });
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
      if (!r.created) reply.header(IDEMPOTENCY_REPLAYED, 'true');
      return reply
        .code(r.created ? 201 : 200)
        .send({ data: r.secret === undefined ? r.endpoint : { ...r.endpoint, secret: r.secret } });
    },
  );

  app.get(
    ROUTE,
    {
      config: { access: { auth: 'session', roles: READERS } },
      schema: {
        operationId: 'listWebhookEndpoints',
        summary: 'List webhook endpoints of your tree, newest first (never the secret)',
        querystring: endpointListQuery,
        response: { 200: listEnvelope(endpointDto), 404: errorEnvelope },
      },
    },
    async (request) => {
      const principal = sessionPrincipal(request);
      const { tenant_id, mode, limit, offset } = request.query;
      if (tenant_id !== undefined) await requireTenantInTree(ctx.db, principal, tenant_id);
      const rows = await ctx.db
        .selectFrom('webhook_endpoints')
        .select([
          'id',
          'tenant_id',
          'url',
          'mode',
          'enabled',
          'disabled_reason',
          'previous_secret_sealed',
          'previous_expires_at',
          'created_at',
          'updated_at',
        ])
        .where('deleted_at', 'is', null)
        .where(tenantInTreeSql(principal))
        .$if(tenant_id !== undefined, (q) => q.where('tenant_id', '=', tenant_id ?? ''))
        .$if(mode !== undefined, (q) => q.where('mode', '=', mode ?? 'test'))
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      const now = ctx.now().getTime();
      return {
        data: rows.map(
          (r): WebhookEndpointView => ({
            id: r.id,
            tenant_id: r.tenant_id,
            url: r.url,
            mode: r.mode,
            enabled: r.enabled,
            disabled_reason: r.disabled_reason,
            previous_secret_expires_at:
              r.previous_secret_sealed !== null &&
              r.previous_expires_at !== null &&
              new Date(r.previous_expires_at).getTime() > now
                ? new Date(r.previous_expires_at).toISOString()
                : null,
            created_at: new Date(r.created_at).toISOString(),
            updated_at: new Date(r.updated_at).toISOString(),
          }),
        ),
        // SPEC 2.1: count is the size of this page, not the total.
        meta: { limit, offset, count: rows.length },
      };
    },
  );

  app.get(
    `${ROUTE}/:id`,
    {
      config: { access: { auth: 'session', roles: READERS } },
      schema: {
        operationId: 'getWebhookEndpoint',
        summary: 'Read a webhook endpoint (never the secret)',
        params: idParams,
        response: { 200: dataEnvelope(endpointDto), 404: errorEnvelope },
      },
    },
    async (request) => {
      // Folded from its stream: always consistent, also while an async read model catches up.
      const loaded = await loadInTree(sessionPrincipal(request), request.params.id);
      return { data: webhookEndpointView(loaded, ctx.now()) };
    },
  );

  app.get(
    `${ROUTE}/:id/secret`,
    {
      config: { access: { auth: 'session', roles: WRITERS } },
      schema: {
        operationId: 'getWebhookEndpointSecret',
        summary: 'View the signing secret (and the previous one within 24 hours of a rotation)',
        description: 'Panel only; super_admin and tenant_admin of the tree. Viewers get 403.',
        params: idParams,
        response: { 200: dataEnvelope(secretsDto), 404: errorEnvelope },
      },
    },
    async (request) => {
      const loaded = await loadInTree(sessionPrincipal(request), request.params.id);
      return { data: await revealWebhookSecrets(ctx.config, loaded.facts, ctx.now()) };
    },
  );

  app.post(
    `${ROUTE}/:id/rotate-secret`,
    {
      config: { access: { auth: 'session', roles: WRITERS } },
      schema: {
        operationId: 'rotateWebhookEndpointSecret',
        summary: 'Rotate the signing secret; the previous one stays valid for 24 hours',
        description:
          'Deliveries are signed with both secrets until previous_expires_at. Rotating again within the window replaces the previous secret with the one just rotated out. No body.',
        params: idParams,
        response: { 200: dataEnvelope(secretsDto), 404: errorEnvelope },
      },
    },
    async (request) => {
      const principal = sessionPrincipal(request);
      await loadInTree(principal, request.params.id);
      await rotateWebhookSecret(deps, request.params.id, eventMetadata(request));
      const rotated = await loadInTree(principal, request.params.id);
      return { data: await revealWebhookSecrets(ctx.config, rotated.facts, ctx.now()) };
    },
  );

  app.patch(
    `${ROUTE}/:id`,
    {
      config: { access: { auth: 'session', roles: WRITERS } },
      schema: {
        operationId: 'updateWebhookEndpoint',
        summary: 'Change a webhook endpoint: url and/or enabled',
        description:
          'Tenant and mode are fixed. Enabling again an endpoint disabled after a 410 Gone resumes deliveries. An empty body is 422.',
        params: idParams,
        body: updateEndpointBody,
        response: { 200: dataEnvelope(endpointDto), 404: errorEnvelope },
      },
    },
    async (request) => {
      await loadInTree(sessionPrincipal(request), request.params.id);
      if (request.body.url !== undefined) checkUrl(request.body.url);
      const endpoint = await updateWebhookEndpoint(
        deps,
        request.params.id,
        { url: request.body.url, enabled: request.body.enabled },
        eventMetadata(request),
      );
      return { data: endpoint };
    },
  );

  app.delete(
    `${ROUTE}/:id`,
    {
      config: { access: { auth: 'session', roles: WRITERS } },
      schema: {
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete a webhook endpoint (final: it is 404 afterwards)',
        params: idParams,
        response: { 204: z.null().meta({ description: 'Deleted' }), 404: errorEnvelope },
      },
    },
    async (request, reply) => {
      await loadInTree(sessionPrincipal(request), request.params.id);
      await deleteWebhookEndpoint(deps, request.params.id, eventMetadata(request));
      return reply.code(204).send(null);
    },
  );
}
