import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import {
  type CostCenterCommand,
  type CostCenterEvent,
  type CostCenterState,
  costCenter,
} from '../aggregates/cost-center.ts';
import { DomainError, fold, isDomainError } from '../aggregates/decider.ts';
import { constantQuery } from '../db/constant-query.ts';
import type { Database } from '../db/schema.ts';
import { type EventMetadata, type NewEvent, WrongExpectedVersionError } from '../events/event-store.ts';
import { newId } from '../ids.ts';
import { type CommandDeps, handleCommand } from './command-handler.ts';
import { claimIdempotencyKey } from './idempotency.ts';
import { loadTenant } from './tenants/tenant-record.ts';

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
  const recorded = await deps.store.read(costCenterStream(costCenterId));
  const first = recorded[0];
  const last = recorded.at(-1);
  if (!first || !last) return undefined;
  const state = fold(
    costCenter,
    recorded.map((r) => deps.registry.decode(r) as CostCenterEvent),
  );
  return viewOf(state, first.recordedAt, last.recordedAt);
}

function viewOf(state: CostCenterState, createdAt: Date, updatedAt: Date): CostCenterRecord | undefined {
  if (state.status === 'none') return undefined;
  return {
    id: state.costCenterId,
    tenant_id: state.tenantId,
    name: state.name,
    active: state.status === 'active',
    created_at: createdAt.toISOString(),
    updated_at: updatedAt.toISOString(),
  };
}

async function mustLoad(deps: ReadDeps, costCenterId: string): Promise<CostCenterRecord> {
  const record = await loadCostCenter(deps, costCenterId);
  if (!record) throw new Error(`cost center ${costCenterId} missing after a command`);
  return record;
}

/** Whether `tenantId` is `rootTenantId` or one of its descendants (folded from the tenant's stream). */
export async function isTenantInTree(
  deps: ReadDeps,
  rootTenantId: string,
  tenantId: string,
): Promise<boolean> {
  if (tenantId === rootTenantId) return true;
  const tenant = await loadTenant(deps, tenantId);
  return tenant?.ancestor_ids.includes(rootTenantId) ?? false;
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
    return { record: await mustLoad(deps, costCenterId), created: true };
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
  return { record: await mustLoad(deps, costCenterId), created: first && r.events.length > 0 };
}

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
  if (current.tenant_id !== input.keyTenantId) {
    throw new DomainError('forbidden', "A key changes only its own tenant's cost centers.");
  }
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
    if (decided.length === 0) return mustLoad(deps, input.costCenterId);
    const events: NewEvent[] = decided.map((e) => ({
      ...deps.registry.encode(e),
      id: (deps.newEventId ?? randomUUID)(),
      metadata,
    }));
    try {
      await deps.store.append(stream, events, recorded.length);
      return mustLoad(deps, input.costCenterId);
    } catch (error) {
      // Re-deciding is safe: the decision depends on the stream alone.
      if (!(error instanceof WrongExpectedVersionError) || attempt >= 5) throw error;
    }
  }
}

/**
 * For the charge and subscription endpoints (SPEC 4.10, 7): the center a new charge of `tenantId` may carry.
 * Missing, inactive or another tenant's (a descendant's or ancestor's included) is `422
 * invalid_cost_center`; the three are not told apart, so ids of other tenants are not confirmed.
 */
export async function resolveCostCenter(
  ctx: { store: CommandDeps['store']; events: CommandDeps['registry'] },
  tenantId: string,
  costCenterId: string,
): Promise<CostCenterRecord> {
  const record = await loadCostCenter({ store: ctx.store, registry: ctx.events }, costCenterId);
  if (!record || record.tenant_id !== tenantId || !record.active) {
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

/**
 * The current names of centers by id, for reads that show `cost_center_name` (from the inline read model;
 * one query whatever the number of ids). Unknown ids are absent from the map.
 */
export async function costCenterNames(
  ctx: { db: Kysely<Database> },
  ids: Iterable<string>,
): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const { rows } = await namesQuery(ctx.db, [unique]);
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** One constant text for any number of ids (issue 14, B3: no statement built per list page). */
const namesQuery = constantQuery<{ id: string; name: string }>(
  'select id, name from cost_centers where id = any($1::text[])',
);
