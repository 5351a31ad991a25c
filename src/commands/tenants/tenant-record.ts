import { type TenantState, type TenantStatus, tenant } from '../../aggregates/tenant.ts';
import type { CommandDeps } from '../command-handler.ts';
import { foldStream } from '../fold-stream.ts';

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

function tenantView(state: TenantState): TenantRecord | undefined {
  if (state.status === 'none') return undefined;
  return {
    id: state.tenantId,
    name: state.name,
    type_id: state.typeId,
    parent_id: state.parentId,
    ancestor_ids: [...state.ancestorIds],
    status: state.status,
  };
}

/** A tenant folded from its stream; undefined when it does not exist. */
export async function loadTenant(
  deps: Pick<CommandDeps, 'store' | 'registry'>,
  tenantId: string,
): Promise<TenantRecord | undefined> {
  return tenantView(await foldStream(deps, tenant, tenantStream(tenantId)));
}

/** The tenant a command ended with (every tenant command ends with one). */
export function existingTenant(state: TenantState): TenantRecord {
  const view = tenantView(state);
  if (!view) throw new Error('a tenant command ended without a tenant');
  return view;
}
