import { z } from 'zod';
import { type AccessProfile, type Role, SCOPES, type Scope } from '../../aggregates/access.ts';
import { apiKey } from '../../aggregates/api-key.ts';
import { isDomainError } from '../../aggregates/decider.ts';
import {
  type ApiKeyRecord,
  apiKeyStream,
  issueApiKey,
  loadApiKey,
  revokeApiKey,
} from '../../commands/api-keys.ts';
import type { CommandDeps } from '../../commands/command-handler.ts';
import type { AppContext } from '../../commands/context.ts';
import { claimIdempotencyKey } from '../../commands/idempotency.ts';
import { isInTree, requireTenantInTree, tenantInTreeSql } from '../../commands/tenancy.ts';
import { apiKeyListQuery, apiKeyView, createApiKeyBody, issuedKey } from '../../contract/api-keys.ts';
import { dataEnvelope, errorEnvelope, IDEMPOTENCY_REPLAYED, listEnvelope } from '../../contract/envelopes.ts';
import { API_KEY_PREFIX } from '../../crypto/secrets.ts';
import { newId } from '../../ids.ts';
import { idempotencyKeyOf, sessionPrincipal } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { eventMetadata } from '../request-metadata.ts';
import type { HttpServer } from '../server.ts';

/** SPEC 5.7 "Issue/revoke keys": super_admin global, tenant_admin own tree, viewer no. */
const KEY_ADMINS = ['super_admin', 'tenant_admin'] as const satisfies readonly Role[];

/** Scopes over subtenants: registering tenants and issuing keys are super_admin powers (SPEC 5.7). */
const SUPER_ADMIN_ONLY: ReadonlySet<Scope> = new Set(['subtenants:write', 'subtenants:keys:write']);

/**
 * SPEC 5.3: a key carries only scopes its creator could exercise. A super_admin may grant every public scope
 * anywhere; a tenant_admin, for its own tree only (checked separately), every scope except those of SPEC 5.7
 * "Tenants, types, users" (`subtenants:write`, `subtenants:keys:write`), which it cannot exercise itself.
 */
export function grantableScopes(role: Role): readonly Scope[] {
  if (role === 'super_admin') return SCOPES;
  if (role === 'tenant_admin') return SCOPES.filter((s) => !SUPER_ADMIN_ONLY.has(s));
  return [];
}

/**
 * SPEC 5.4: the profile is fixed by the server from the creator's ability to verify and simulate
 * transactions in the panel (SPEC 5.7 "Refresh from provider": super_admin and tenant_admin can, viewer
 * cannot). Every role that may issue keys today gets `standard`; `developer` is for creators who cannot.
 */
export function accessProfileFor(role: Role): AccessProfile {
  return role === 'viewer' ? 'developer' : 'standard';
}

const ROUTE = '/admin/api-keys';

type ApiKeyView = z.infer<typeof apiKeyView>;

/** What an idempotency claim of this route carries to complete an issuance (never the secret). */
const claimPayload = z.object({
  tenant_id: z.string(),
  mode: z.enum(['test', 'live']),
  scopes: z.array(z.enum(SCOPES)),
  name: z.string(),
  access_profile: z.enum(['standard', 'developer']),
  created_by: z.string(),
});

const iso = (t: Date | string) => new Date(t).toISOString();

/**
 * The record with its times from the key's own stream, as the api_keys projection records them (the events'
 * recorded times): DESIGN.md "A command answers from its own fold", the read model may trail in async mode.
 */
async function viewOf(ctx: AppContext, record: ApiKeyRecord): Promise<ApiKeyView> {
  const recorded = await ctx.store.read(apiKeyStream(record.id));
  const issued = recorded.find((r) => r.type === 'ApiKey.Issued');
  const revoked = recorded.find((r) => r.type === 'ApiKey.Revoked');
  return {
    id: record.id,
    tenant_id: record.tenant_id,
    name: record.name,
    mode: record.livemode ? 'live' : 'test',
    scopes: record.scopes,
    access_profile: record.access_profile,
    prefix: record.prefix,
    status: record.status,
    created_at: iso(issued?.recordedAt ?? ctx.now()),
    revoked_at: revoked ? iso(revoked.recordedAt) : null,
  };
}

/** SPEC 5.3: scopes in the canonical order, so the same set in another order is the same request. */
function canonicalScopes(scopes: readonly Scope[]): Scope[] {
  return [...scopes].sort((a, b) => SCOPES.indexOf(a) - SCOPES.indexOf(b));
}

interface IssueRequest {
  tenant_id: string;
  mode: 'test' | 'live';
  scopes: Scope[];
  name: string;
}

/** Refuses what the key decider would refuse, before anything is claimed (a claim must be completable). */
function precheck(req: IssueRequest, profile: AccessProfile, createdBy: string): void {
  const prefix = req.mode === 'live' ? API_KEY_PREFIX.live : API_KEY_PREFIX.test;
  const decision = apiKey.decide(
    {
      kind: 'issue',
      keyId: 'key_precheck',
      tenantId: req.tenant_id,
      tenantExists: true,
      livemode: req.mode === 'live',
      name: req.name,
      scopes: req.scopes,
      accessProfile: profile,
      secretSha256: '0'.repeat(64),
      prefix: `${prefix}AAAA`,
      createdBy,
    },
    apiKey.initialState,
    { now: new Date(0) },
  );
  if (isDomainError(decision)) throw decision;
}

/** Panel API keys (SPEC 2.7, 4 common rules, 5.2-5.4, 5.7). */
export function registerApiKeyRoutes(app: HttpServer, ctx: AppContext): void {
  const deps = (): CommandDeps => ({ store: ctx.store, registry: ctx.events, now: () => ctx.now() });

  app.post(
    ROUTE,
    {
      config: { access: { auth: 'session', roles: KEY_ADMINS, idempotencyKey: true } },
      schema: {
        operationId: 'createApiKey',
        summary: 'Issue an API key (the secret is shown only in this answer)',
        description:
          'Requires Idempotency-Key. A replay with the same key and body answers 200 with `Idempotency-Replayed: true` and the record without the secret; another body is 409 idempotency_conflict. Scopes are explicit. The access profile is set by the server. A tenant outside your tree is 404.',
        body: createApiKeyBody,
        response: {
          200: dataEnvelope(issuedKey).meta({ description: 'Replay: the same key, without its secret' }),
          201: dataEnvelope(issuedKey).meta({ description: 'Issued; `key` is the secret, shown only now' }),
          404: errorEnvelope,
          409: errorEnvelope,
        },
      },
    },
    async (request, reply) => {
      const principal = sessionPrincipal(request);
      const idempotencyKey = idempotencyKeyOf(request);
      const req: IssueRequest = {
        tenant_id: request.body.tenant_id,
        mode: request.body.mode,
        scopes: canonicalScopes(request.body.scopes),
        name: request.body.name.trim(),
      };
      const grantable = new Set(grantableScopes(principal.role));
      if (req.scopes.some((s) => !grantable.has(s))) {
        throw new ApiError('forbidden', 'You cannot grant a scope you could not exercise.');
      }
      await requireTenantInTree(ctx.db, principal, req.tenant_id);
      const profile = accessProfileFor(principal.role);
      precheck(req, profile, principal.actor);

      const metadata = eventMetadata(request);
      const { first, claim } = await claimIdempotencyKey(
        ctx,
        {
          scope: principal.userId,
          key: idempotencyKey,
          method: 'POST',
          route: ROUTE,
          body: req,
          resourceId: newId('key'),
          payload: { ...req, access_profile: profile, created_by: principal.actor },
        },
        metadata,
      );
      const keyId = claim.resource_id;
      if (!first) {
        const existing = await loadApiKey(deps(), keyId);
        if (existing) {
          reply.header(IDEMPOTENCY_REPLAYED, 'true');
          return reply.code(200).send({ data: await viewOf(ctx, existing) });
        }
      }
      // First request, or a replay finding a claim whose key was never issued (the process died between the
      // two appends): the secret was never shown, so issuing it now and showing it is the first issuance.
      const issued = await issueOrReplay(ctx, keyId, claim.payload, metadata);
      if (!issued.key) reply.header(IDEMPOTENCY_REPLAYED, 'true');
      return reply.code(issued.key ? 201 : 200).send({ data: issued });
    },
  );

  app.get(
    ROUTE,
    {
      config: { access: { auth: 'session', roles: KEY_ADMINS } },
      schema: {
        operationId: 'listApiKeys',
        summary: 'List API keys of your tree (never the secret)',
        querystring: apiKeyListQuery,
        response: { 200: listEnvelope(apiKeyView), 404: errorEnvelope },
      },
    },
    async (request) => {
      const principal = sessionPrincipal(request);
      const { tenant_id, limit, offset } = request.query;
      if (tenant_id !== undefined) await requireTenantInTree(ctx.db, principal, tenant_id);
      const base = ctx.db
        .selectFrom('api_keys')
        .where(tenantInTreeSql(principal))
        .$if(tenant_id !== undefined, (q) => q.where('tenant_id', '=', tenant_id ?? ''));
      const rows = await base
        .select([
          'id',
          'tenant_id',
          'name',
          'livemode',
          'scopes',
          'access_profile',
          'prefix',
          'created_at',
          'revoked_at',
        ])
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      const known = new Set<string>(SCOPES);
      return {
        data: rows.map(
          (r): ApiKeyView => ({
            id: r.id,
            tenant_id: r.tenant_id,
            name: r.name,
            mode: r.livemode ? 'live' : 'test',
            scopes: r.scopes.filter((s): s is Scope => known.has(s)),
            access_profile: r.access_profile,
            prefix: r.prefix,
            status: r.revoked_at ? 'revoked' : 'issued',
            created_at: iso(r.created_at),
            revoked_at: r.revoked_at ? iso(r.revoked_at) : null,
          }),
        ),
        // SPEC 2.1: count is the size of this page, not the total.
        meta: { limit, offset, count: rows.length },
      };
    },
  );

  app.delete(
    `${ROUTE}/:id`,
    {
      config: { access: { auth: 'session', roles: KEY_ADMINS } },
      schema: {
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key (effective on its next request; revoking again changes nothing)',
        params: z.object({ id: z.string().min(1).max(64) }),
        response: {
          200: dataEnvelope(apiKeyView).meta({ description: 'The revoked key' }),
          404: errorEnvelope,
        },
      },
    },
    async (request) => {
      const principal = sessionPrincipal(request);
      const record = await loadApiKey(deps(), request.params.id);
      if (!record || !(await isInTree(ctx.db, principal, record.tenant_id))) throw new ApiError('not_found');
      const revoked = await revokeApiKey(deps(), record.id, eventMetadata(request));
      return { data: await viewOf(ctx, revoked) };
    },
  );

  /** Issues the claimed key; a concurrent completion of the same claim makes this a replay. */
  async function issueOrReplay(
    appCtx: AppContext,
    keyId: string,
    payload: Record<string, unknown>,
    metadata: ReturnType<typeof eventMetadata>,
  ): Promise<z.infer<typeof issuedKey>> {
    const req = claimPayload.parse(payload);
    try {
      const { key, record } = await issueApiKey(
        deps(),
        {
          keyId,
          tenantId: req.tenant_id,
          livemode: req.mode === 'live',
          name: req.name,
          scopes: req.scopes,
          accessProfile: req.access_profile,
          createdBy: req.created_by,
        },
        metadata,
      );
      return { ...(await viewOf(appCtx, record)), key };
    } catch (error) {
      const existing = await loadApiKey(deps(), keyId);
      if (!existing) throw error;
      return viewOf(appCtx, existing);
    }
  }
}
