import { reactivateTenant as reactivateTenantOperation } from '../../../contract/operations/tenants.ts';
import { bind } from '../../bind.ts';
import { identityDeps } from '../../users/identity-deps.ts';
import { toTenantDto } from '../tenant-dto.ts';
import { reactivateTenant } from './handler.ts';

export const reactivateRoute = bind(reactivateTenantOperation, async (call, ctx) => {
  const t = await reactivateTenant(identityDeps(ctx), call.params.id, call.metadata());
  return { data: toTenantDto(t) };
});
