import { suspendTenant as suspendTenantOperation } from '../../../contract/operations/tenants.ts';
import { bind } from '../../bind.ts';
import { identityDeps } from '../../users/identity-deps.ts';
import { toTenantDto } from '../tenant-dto.ts';
import { suspendTenant } from './handler.ts';

export const suspendRoute = bind(suspendTenantOperation, async (call, ctx) => {
  const principal = call.session();
  const t = await suspendTenant(identityDeps(ctx), call.params.id, call.metadata(), {
    actorTenantId: principal.tenantId,
  });
  return { data: toTenantDto(t) };
});
