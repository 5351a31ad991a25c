import { ApiError } from '../../../aggregates/errors.ts';
import { getTenant } from '../../../contract/operations/tenants.ts';
import { bind } from '../../bind.ts';
import { requireTenantInTree } from '../../tenancy.ts';
import { identityDeps } from '../../users/identity-deps.ts';
import { toTenantDto } from '../tenant-dto.ts';
import { loadTenant } from '../tenant-record.ts';

/** A tenant of the caller's tree (another tree: 404). No handler: nothing is decided. */
export const getRoute = bind(getTenant, async (call, ctx) => {
  await requireTenantInTree(ctx.db, call.session(), call.params.id);
  // Folded from the stream: always consistent, whatever the read model's lag.
  const t = await loadTenant(identityDeps(ctx), call.params.id);
  if (!t) throw new ApiError('not_found');
  return { data: toTenantDto(t) };
});
