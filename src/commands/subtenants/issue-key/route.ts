import { isDomainError } from '../../../aggregates/decider.ts';
import { decideSubtenantKey } from '../../../aggregates/subtenant.ts';
import { createSubtenantKey } from '../../../contract/operations/subtenants.ts';
import { newId } from '../../../ids.ts';
import { loadApiKey } from '../../api-keys/api-key-record.ts';
import { viewOf } from '../../api-keys/api-key-view.ts';
import { canonicalScopes, type IssueRequest, issueOrReplay, precheck } from '../../api-keys/issue/route.ts';
import { bind, createdOrReplayed, replayed } from '../../bind.ts';
import { claimIdempotencyKey } from '../../idempotency.ts';
import { isTenantBlocked } from '../../tenancy.ts';
import { loadTenant } from '../../tenants/tenant-record.ts';
import { identityDeps } from '../../users/identity-deps.ts';

/**
 * SPEC 4 common rules, 4.13, 5.3-5.5: a key for a descendant of the caller's tenant, once per
 * Idempotency-Key (scope: the caller's tenant and mode). The rules are decideSubtenantKey's; the issuance
 * is the panel's (src/commands/api-keys/issue: the secret is hashed there and shown only in this answer).
 */
export const issueKeyRoute = bind(createSubtenantKey, async (call, ctx) => {
  const principal = call.apiKey();
  const deps = identityDeps(ctx);
  const idempotencyKey = call.idempotencyKey();
  const targetId = call.params.id;
  const scopes = canonicalScopes(call.body.scopes);
  const target = targetId === principal.tenantId ? undefined : await loadTenant(deps, targetId);
  const grant = decideSubtenantKey(
    principal,
    {
      tenantId: targetId,
      ancestorIds: target?.ancestor_ids ?? [],
      blocked: target ? await isTenantBlocked(ctx.db, targetId) : false,
    },
    scopes,
  );
  if (isDomainError(grant)) throw grant;

  const req: IssueRequest = {
    tenant_id: targetId,
    mode: grant.livemode ? 'live' : 'test',
    scopes,
    name: call.body.name.trim(),
  };
  precheck(req, grant.accessProfile, principal.actor);
  const metadata = call.metadata();
  const { first, claim } = await claimIdempotencyKey(
    deps,
    {
      scope: principal.tenantId,
      key: idempotencyKey,
      method: 'POST',
      route: createSubtenantKey.path,
      body: req,
      resourceId: newId('key'),
      payload: { ...req, access_profile: grant.accessProfile, created_by: principal.actor },
      livemode: principal.livemode,
    },
    metadata,
  );
  const keyId = claim.resource_id;
  if (!first) {
    const existing = await loadApiKey(deps, keyId);
    if (existing) return replayed(200, { data: await viewOf(ctx, existing) });
  }
  // First request, or a claim whose key was never issued (the process died between the two appends): the
  // secret was never shown, so issuing it now and showing it is the first issuance.
  const issued = await issueOrReplay(ctx, keyId, claim.payload, metadata);
  return createdOrReplayed(Boolean(issued.key), { data: issued });
});
