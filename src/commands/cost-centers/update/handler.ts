import { randomUUID } from 'node:crypto';
import { type CostCenterCommand, type CostCenterEvent, costCenter } from '../../../aggregates/cost-center.ts';
import { fold, isDomainError } from '../../../aggregates/decider.ts';
import { type EventMetadata, type NewEvent, WrongExpectedVersionError } from '../../../events/event-store.ts';
import type { CommandDeps } from '../../command-handler.ts';
import { requireOwnTenant } from '../../tenancy.ts';
import { type CostCenterRecord, costCenterStream, mustLoadCostCenter, readCostCenter } from '../record.ts';

export interface UpdateCostCenterInput {
  costCenterId: string;
  /** The key's tenant: only its own centers may change (docs/decisions.md "Charges"). */
  keyTenantId: string;
  name?: string;
  active?: boolean;
}

/**
 * `PATCH /v1/cost-centers/{id}`: rename and/or (de)activate, decided together and appended in one batch
 * with the version that was read, so a PATCH is all or nothing. A descendant's center is `403 forbidden`
 * (SPEC 4.10 "writes only the own tenant"); outside the key's tree, `404 not_found`. Repeats are no-ops.
 */
export async function updateCostCenter(
  deps: CommandDeps,
  input: UpdateCostCenterInput,
  metadata: EventMetadata,
): Promise<CostCenterRecord> {
  const current = await readCostCenter(deps, input.keyTenantId, input.costCenterId);
  requireOwnTenant(input.keyTenantId, current.tenant_id, "A key changes only its own tenant's cost centers.");
  const commands: CostCenterCommand[] = [];
  if (input.name !== undefined) commands.push({ kind: 'rename', name: input.name.trim() });
  if (input.active !== undefined) commands.push({ kind: input.active ? 'reactivate' : 'deactivate' });

  const stream = costCenterStream(input.costCenterId);
  for (let attempt = 1; ; attempt++) {
    const recorded = await deps.store.read(stream);
    let state = fold(
      costCenter,
      recorded.map((r) => deps.registry.decode(r) as CostCenterEvent),
    );
    const decided: CostCenterEvent[] = [];
    for (const command of commands) {
      const decision = costCenter.decide(command, state, { now: deps.now() });
      if (isDomainError(decision)) throw decision;
      for (const event of decision) state = costCenter.evolve(state, event);
      decided.push(...decision);
    }
    if (decided.length === 0) return mustLoadCostCenter(deps, input.costCenterId);
    const events: NewEvent[] = decided.map((e) => ({
      ...deps.registry.encode(e),
      id: (deps.newEventId ?? randomUUID)(),
      metadata,
    }));
    try {
      await deps.store.append(stream, events, recorded.length);
      return mustLoadCostCenter(deps, input.costCenterId);
    } catch (error) {
      // Re-deciding is safe: the decision depends on the stream alone.
      if (!(error instanceof WrongExpectedVersionError) || attempt >= 5) throw error;
    }
  }
}
