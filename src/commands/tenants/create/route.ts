import { isDomainError } from '../../../aggregates/decider.ts';
import { ApiError } from '../../../aggregates/errors.ts';
import { createTenant as createTenantOperation } from '../../../contract/operations/tenants.ts';
import { sha256Hex } from '../../../crypto/secrets.ts';
import { Answer, bind, replayed } from '../../bind.ts';
import { identityDeps } from '../../users/identity-deps.ts';
import { toTenantDto } from '../tenant-dto.ts';
import { loadTenant, type TenantRecord } from '../tenant-record.ts';
import { createTenant } from './handler.ts';

/**
 * The tenant id a creation gets is derived from the caller and its Idempotency-Key, so the creation is one
 * append to a stream that must not exist: a repeat finds the tenant, and a crash leaves nothing half done.
 */
export function tenantIdFor(userId: string, idempotencyKey: string): string {
  return `ten_${sha256Hex(`${userId}\n${idempotencyKey}`).slice(0, 26)}`;
}

const replayedTenant = (t: TenantRecord) => replayed(200, { data: toTenantDto(t) });

/** SPEC 1, 2.7, 5.7: a tenant, once per Idempotency-Key. */
export const createRoute = bind(createTenantOperation, async (call, ctx) => {
  const deps = identityDeps(ctx);
  const principal = call.session();
  const tenantId = tenantIdFor(principal.userId, call.idempotencyKey());
  const body = call.body;
  const input = {
    tenantId,
    name: body.name,
    typeId: body.type_id,
    parentId: body.parent_id ?? null,
  };
  const sameBody = (t: TenantRecord) =>
    t.name === body.name.trim() && t.type_id === input.typeId && t.parent_id === input.parentId;

  const earlier = await loadTenant(deps, tenantId);
  if (earlier) {
    if (!sameBody(earlier)) throw new ApiError('idempotency_conflict');
    return replayedTenant(earlier);
  }
  try {
    const created = await createTenant(deps, input, call.metadata());
    return new Answer(201, { data: toTenantDto(created) });
  } catch (error) {
    if (!isDomainError(error) || error.code !== 'conflict') throw error;
    // The id belongs to this key: if the tenant exists now, a concurrent request with the key made it.
    const raced = await loadTenant(deps, tenantId);
    if (!raced) throw error;
    if (!sameBody(raced)) throw new ApiError('idempotency_conflict');
    return replayedTenant(raced);
  }
});
