import { type TenantStatus, tenant } from '../../aggregates/tenant.ts';
import { aggregateRecord } from '../aggregate-record.ts';

/** A tenant as the registry's commands answer it (SPEC 2.7, 5.5). */
export interface TenantRecord {
  id: string;
  name: string;
  type_id: string;
  parent_id: string | null;
  /** Root first, the tenant itself last. */
  ancestor_ids: string[];
  status: TenantStatus;
}

export const tenantStream = (tenantId: string) => `tenant-${tenantId}`;

const record = aggregateRecord(
  tenant,
  tenantStream,
  (state): TenantRecord => ({
    id: state.tenantId,
    name: state.name,
    type_id: state.typeId,
    parent_id: state.parentId,
    ancestor_ids: [...state.ancestorIds],
    status: state.status,
  }),
  'tenant',
);

/** A tenant folded from its stream; undefined when it does not exist. */
export const loadTenant = record.load;
/** The tenant a command ended with (every tenant command ends with one). */
export const existingTenant = record.commanded;
