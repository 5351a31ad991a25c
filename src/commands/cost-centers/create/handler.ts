import { costCenter } from '../../../aggregates/cost-center.ts';
import { isDomainError } from '../../../aggregates/decider.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { newId } from '../../../ids.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import { claimIdempotencyKey } from '../../idempotency.ts';
import { type CostCenterRecord, costCenterStream, loadCostCenter, mustLoadCostCenter } from '../record.ts';

export interface CreateCostCenterInput {
  /** The key's tenant (SPEC 4.12). */
  tenantId: string;
  name: string;
  /**
   * The Idempotency-Key header, already checked against the SPEC 4 pattern; optional (SPEC 4 common rules
   * do not list cost centers among the creations that require one). Without it every request creates.
   */
  idempotencyKey?: string | undefined;
  /** The route template, part of the request hash. */
  route: string;
  /** Chosen by the server unless given (tests). */
  costCenterId?: string;
}

/**
 * `POST /v1/cost-centers` (SPEC 4 common rules, 4.12). The name is trimmed and checked before the key is
 * claimed (a claim must be completable); the claim (scope: the tenant) carries the center's id, tenant and
 * name, and the creation is a second append. A replay with the same key and body answers the stored center
 * as it is now, appending nothing; one finding a claim whose center was never created (a crash between the
 * appends) completes the creation from the claim. Both answer `created: false`. Another body under the key
 * is `409 idempotency_conflict`. Without a key (it is optional, SPEC 4 common rules) every request creates.
 */
export async function createCostCenter(
  deps: CommandDeps,
  input: CreateCostCenterInput,
  metadata: EventMetadata,
): Promise<{ record: CostCenterRecord; created: boolean }> {
  const name = input.name.trim();
  const precheck = costCenter.decide(
    { kind: 'create', costCenterId: 'cc_precheck', tenantId: input.tenantId, name },
    costCenter.initialState,
    { now: deps.now() },
  );
  if (isDomainError(precheck)) throw precheck;

  if (input.idempotencyKey === undefined) {
    const costCenterId = input.costCenterId ?? newId('cc');
    await handleCommand(
      deps,
      costCenter,
      costCenterStream(costCenterId),
      { kind: 'create', costCenterId, tenantId: input.tenantId, name },
      { metadata, retryOnConflict: true },
    );
    return { record: await mustLoadCostCenter(deps, costCenterId), created: true };
  }

  const { first, claim } = await claimIdempotencyKey(
    deps,
    {
      // Tenant only, not the mode: a center is the same record in test and production (SPEC 4.12).
      scope: input.tenantId,
      key: input.idempotencyKey,
      method: 'POST',
      route: input.route,
      body: { name },
      resourceId: input.costCenterId ?? newId('cc'),
      payload: { tenant_id: input.tenantId, name },
    },
    metadata,
  );
  const costCenterId = claim.resource_id;
  // A replay answers the stored center as it is now (renamed or deactivated since): never re-created.
  const existing = first ? undefined : await loadCostCenter(deps, costCenterId);
  if (existing) return { record: existing, created: false };
  const claimed = { tenant_id: String(claim.payload.tenant_id), name: String(claim.payload.name) };
  // Completes a claim whose center was never created (a crash between the appends).
  const r = await handleCommand(
    deps,
    costCenter,
    costCenterStream(costCenterId),
    { kind: 'create', costCenterId, tenantId: claimed.tenant_id, name: claimed.name },
    { metadata, retryOnConflict: true },
  );
  return { record: await mustLoadCostCenter(deps, costCenterId), created: first && r.events.length > 0 };
}
