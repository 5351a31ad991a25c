import { DomainError, isDomainError } from '../../../aggregates/decider.ts';
import { decideSubtenantRegistration } from '../../../aggregates/subtenant.ts';
import { tenant } from '../../../aggregates/tenant.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { newId } from '../../../ids.ts';
import type { CommandDeps } from '../../command-handler.ts';
import { claimIdempotencyKey } from '../../idempotency.ts';
import { createTenant, parentFacts } from '../../tenants/create/handler.ts';
import { loadTenant, type TenantRecord } from '../../tenants/tenant-record.ts';
import { loadTenantType } from '../../tenants/tenant-type-record.ts';

export interface CreateSubtenantInput {
  /** The key's tenant: the parent (SPEC 4.13, 5.5). */
  parentId: string;
  livemode: boolean;
  name: string;
  /** Absent: the parent's own type (which allows children, or the creation is refused anyway). */
  typeId: string | undefined;
  /** The Idempotency-Key header, already checked against the SPEC 4 pattern. */
  idempotencyKey: string;
  /** The route template, part of the request hash. */
  route: string;
}

/**
 * Refuses what the tenant decider would refuse, before the key is claimed (a claim must be completable).
 * An unknown type is a bad body field here (422 validation_error), not a missing path id; a parent whose
 * type allows no children stays the registry's `409 conflict` (SPEC 7 registry conflicts), as in the panel.
 */
async function precheck(
  deps: CommandDeps,
  input: CreateSubtenantInput,
  name: string,
  typeId: string,
): Promise<void> {
  const [type, parent] = await Promise.all([loadTenantType(deps, typeId), parentFacts(deps, input.parentId)]);
  const decision = tenant.decide(
    {
      kind: 'create',
      tenantId: 'ten_precheck',
      name,
      typeId,
      typeExists: type !== undefined,
      parent,
    },
    tenant.initialState,
    { now: deps.now() },
  );
  if (!isDomainError(decision)) return;
  if (decision.code === 'not_found' && decision.details.param === 'type_id') {
    throw new DomainError('validation_error', 'type_id names no tenant type.', { param: 'type_id' });
  }
  throw decision;
}

/**
 * `POST /v1/subtenants` (SPEC 4 common rules, 4.13): a tenant under the key's tenant. Production keys only;
 * the claim (scope: the key's tenant, live mode) carries the new tenant's id, name and type, and the
 * creation is a second append. A replay with the same key and body answers the subtenant as it is now
 * (suspended since, say); one finding a claim whose tenant was never created (a crash between the appends)
 * completes the creation from the claim. Another body under the key is `409 idempotency_conflict`.
 * Without a type the subtenant gets its parent's (docs/decisions.md "Subtenants (issue 28 item 1)").
 */
export async function createSubtenant(
  deps: CommandDeps,
  input: CreateSubtenantInput,
  metadata: EventMetadata,
): Promise<{ record: TenantRecord; created: boolean }> {
  const refused = decideSubtenantRegistration({ livemode: input.livemode });
  if (refused) throw refused;
  const name = input.name.trim();
  // The key's tenant exists (it authenticated the request); tenants are never deleted.
  const typeId = input.typeId ?? (await loadTenant(deps, input.parentId))?.type_id ?? '';
  await precheck(deps, input, name, typeId);

  const { first, claim } = await claimIdempotencyKey(
    deps,
    {
      scope: input.parentId,
      key: input.idempotencyKey,
      method: 'POST',
      route: input.route,
      // The resolved type: sending the default explicitly is the same request as leaving it out.
      body: { name, type_id: typeId },
      resourceId: newId('ten'),
      payload: { parent_id: input.parentId, name, type_id: typeId },
      livemode: input.livemode,
    },
    metadata,
  );
  const tenantId = claim.resource_id;
  const existing = first ? undefined : await loadTenant(deps, tenantId);
  if (existing) return { record: existing, created: false };
  // First request, or a claim whose tenant was never created: create it from the claim's facts.
  const record = await createTenant(
    deps,
    {
      tenantId,
      name: String(claim.payload.name),
      typeId: String(claim.payload.type_id),
      parentId: String(claim.payload.parent_id),
    },
    metadata,
  );
  return { record, created: first };
}
