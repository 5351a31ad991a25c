import { costCenter } from '../../aggregates/cost-center.ts';
import { DomainError } from '../../aggregates/decider.ts';
import type { CommandDeps } from '../command-handler.ts';
import { foldExisting } from '../fold-stream.ts';
import { isTenantInTree } from '../tenancy.ts';

/**
 * Cost centers (SPEC 4.12, 5.3 `cost_centers:write`, 7 `invalid_cost_center`). Writes are for the key's own
 * tenant only; reads see the key's tree (docs/decisions.md "Charges").
 */

export interface CostCenterRecord {
  id: string;
  tenant_id: string;
  name: string;
  active: boolean;
  /** Recorded time of CostCenter.Created (ISO 8601). */
  created_at: string;
  /** Recorded time of the last event of the center (ISO 8601). */
  updated_at: string;
}

export const costCenterStream = (costCenterId: string) => `cost_center-${costCenterId}`;

type ReadDeps = Pick<CommandDeps, 'store' | 'registry'>;

/**
 * A center folded from its stream (always consistent, unlike the read model); its times are the recorded
 * times of its first and last events, as the `cost_centers` read model stores them. Ids that are not
 * `cc_...` are never looked up.
 */
export async function loadCostCenter(
  deps: ReadDeps,
  costCenterId: string,
): Promise<CostCenterRecord | undefined> {
  if (!/^cc_[A-Za-z0-9]{1,60}$/.test(costCenterId)) return undefined;
  const folded = await foldExisting(
    deps.store,
    (r) => deps.registry.decode(r),
    costCenter,
    costCenterStream(costCenterId),
  );
  if (!folded) return undefined;
  const { state, createdAt, updatedAt } = folded;
  return {
    id: state.costCenterId,
    tenant_id: state.tenantId,
    name: state.name,
    active: state.status === 'active',
    created_at: createdAt.toISOString(),
    updated_at: updatedAt.toISOString(),
  };
}

/** The center a command just created or changed. */
export async function mustLoadCostCenter(deps: ReadDeps, costCenterId: string): Promise<CostCenterRecord> {
  const record = await loadCostCenter(deps, costCenterId);
  if (!record) throw new Error(`cost center ${costCenterId} missing after a command`);
  return record;
}

/**
 * SPEC 4.12 reads: the key's own centers and its descendants' (SPEC 4.4: a parent reads a child's records).
 * Anything else, missing included, is `404 not_found`.
 */
export async function readCostCenter(
  deps: ReadDeps,
  keyTenantId: string,
  costCenterId: string,
): Promise<CostCenterRecord> {
  const record = await loadCostCenter(deps, costCenterId);
  if (!record || !(await isTenantInTree(deps, keyTenantId, record.tenant_id))) {
    throw new DomainError('not_found', 'The cost center does not exist.');
  }
  return record;
}
