import type { TenantRecord } from './tenant-record.ts';

type TenantFields = Pick<TenantRecord, 'id' | 'name' | 'type_id' | 'parent_id' | 'status'>;

/** A tenant as the panel shows it (src/contract/tenants.ts `tenantDto`): never its ancestors. */
export const toTenantDto = (t: TenantFields) => ({
  id: t.id,
  name: t.name,
  type_id: t.type_id,
  parent_id: t.parent_id,
  status: t.status,
});
