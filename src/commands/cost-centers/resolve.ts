import { DomainError } from '../../aggregates/decider.ts';
import type { CommandDeps } from '../command-handler.ts';
import { type CostCenterRecord, loadCostCenter } from './record.ts';

/**
 * For the charge and subscription endpoints (SPEC 4.10, 7): the center a new charge of `tenantId` may carry.
 * Missing, inactive or another tenant's (a descendant's or ancestor's included) is `422
 * invalid_cost_center`; the three are not told apart, so ids of other tenants are not confirmed.
 * `inherited`: the center comes from a subscription or a checkout link, checked when it was linked; it may
 * have been deactivated since (SPEC 4.10: "deactivating a linked center preserves classification and
 * continuity"), so it only has to be the tenant's.
 */
export async function resolveCostCenter(
  ctx: { store: CommandDeps['store']; events: CommandDeps['registry'] },
  tenantId: string,
  costCenterId: string,
  opts: { inherited?: boolean | undefined } = {},
): Promise<CostCenterRecord> {
  const record = await loadCostCenter({ store: ctx.store, registry: ctx.events }, costCenterId);
  if (!record || record.tenant_id !== tenantId || (!record.active && !opts.inherited)) {
    throw new DomainError(
      'invalid_cost_center',
      'The cost center is inactive or belongs to another tenant.',
      {
        param: 'cost_center_id',
      },
    );
  }
  return record;
}
