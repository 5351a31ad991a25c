import { z } from 'zod';
import { type AccessProfile, type Role, SCOPES, type Scope } from '../../../aggregates/access.ts';
import { apiKey } from '../../../aggregates/api-key.ts';
import { isDomainError } from '../../../aggregates/decider.ts';
import { ApiError } from '../../../aggregates/errors.ts';
import type { issuedKey } from '../../../contract/api-keys.ts';
import { createApiKey } from '../../../contract/operations/api-keys.ts';
import { API_KEY_PREFIX } from '../../../crypto/secrets.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { newId } from '../../../ids.ts';
import { bind, createdOrReplayed, replayed } from '../../bind.ts';
import type { AppContext } from '../../context.ts';
import { claimPanelCreation } from '../../panel-claim.ts';
import { livemodeOf, requireTenantInTree } from '../../tenancy.ts';
import { identityDeps } from '../../users/identity-deps.ts';
import { loadApiKey } from '../api-key-record.ts';
import { viewOf } from '../api-key-view.ts';
import { issueApiKey } from './handler.ts';

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

/** What an idempotency claim of this route carries to complete an issuance (never the secret). */
const claimPayload = z.object({
  tenant_id: z.string(),
  mode: z.enum(['test', 'live']),
  scopes: z.array(z.enum(SCOPES)),
  name: z.string(),
  access_profile: z.enum(['standard', 'developer']),
  created_by: z.string(),
});

/** SPEC 5.3: scopes in the canonical order, so the same set in another order is the same request. */
export function canonicalScopes(scopes: readonly Scope[]): Scope[] {
  return [...scopes].sort((a, b) => SCOPES.indexOf(a) - SCOPES.indexOf(b));
}

export interface IssueRequest {
  tenant_id: string;
  mode: 'test' | 'live';
  scopes: Scope[];
  name: string;
}

/** Refuses what the key decider would refuse, before anything is claimed (a claim must be completable). */
export function precheck(req: IssueRequest, profile: AccessProfile, createdBy: string): void {
  const prefix = req.mode === 'live' ? API_KEY_PREFIX.live : API_KEY_PREFIX.test;
  const decision = apiKey.decide(
    {
      kind: 'issue',
      keyId: 'key_precheck',
      tenantId: req.tenant_id,
      tenantExists: true,
      livemode: livemodeOf(req.mode),
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

/**
 * Issues the claimed key; a concurrent completion of the same claim makes this a replay. Shared with
 * POST /v1/subtenants/{id}/api-keys, whose claims carry the same payload.
 */
export async function issueOrReplay(
  ctx: AppContext,
  keyId: string,
  payload: Record<string, unknown>,
  metadata: EventMetadata,
): Promise<z.infer<typeof issuedKey>> {
  const deps = identityDeps(ctx);
  const req = claimPayload.parse(payload);
  try {
    const { key, record } = await issueApiKey(
      deps,
      {
        keyId,
        tenantId: req.tenant_id,
        livemode: livemodeOf(req.mode),
        name: req.name,
        scopes: req.scopes,
        accessProfile: req.access_profile,
        createdBy: req.created_by,
      },
      metadata,
    );
    return { ...(await viewOf(ctx, record)), key };
  } catch (error) {
    const existing = await loadApiKey(deps, keyId);
    if (!existing) throw error;
    return viewOf(ctx, existing);
  }
}

/** SPEC 4 common rules, 5.2-5.4, 5.7: a key of the caller's tree, once per Idempotency-Key. */
export const issueRoute = bind(createApiKey, async (call, ctx) => {
  const principal = call.session();
  const idempotencyKey = call.idempotencyKey();
  const req: IssueRequest = {
    tenant_id: call.body.tenant_id,
    mode: call.body.mode,
    scopes: canonicalScopes(call.body.scopes),
    name: call.body.name.trim(),
  };
  const grantable = new Set(grantableScopes(principal.role));
  if (req.scopes.some((s) => !grantable.has(s))) {
    throw new ApiError('forbidden', 'You cannot grant a scope you could not exercise.');
  }
  await requireTenantInTree(ctx.db, principal, req.tenant_id);
  const profile = accessProfileFor(principal.role);
  precheck(req, profile, principal.actor);

  const metadata = call.metadata();
  const { first, claim } = await claimPanelCreation(
    ctx,
    createApiKey,
    { principal, key: idempotencyKey },
    {
      body: req,
      resourceId: newId('key'),
      payload: { ...req, access_profile: profile, created_by: principal.actor },
    },
    metadata,
  );
  const keyId = claim.resource_id;
  if (!first) {
    const existing = await loadApiKey(identityDeps(ctx), keyId);
    if (existing) return replayed(200, { data: await viewOf(ctx, existing) });
  }
  // First request, or a replay finding a claim whose key was never issued (the process died between the
  // two appends): the secret was never shown, so issuing it now and showing it is the first issuance.
  const issued = await issueOrReplay(ctx, keyId, claim.payload, metadata);
  return createdOrReplayed(Boolean(issued.key), { data: issued });
});
