import { randomUUID } from 'node:crypto';
import { DomainError, isDomainError } from '../aggregates/decider.ts';
import { type ParentFacts, type TenantState, type TenantStatus, tenant } from '../aggregates/tenant.ts';
import {
  type CreateTenantType,
  type TenantTypeNameReservedData,
  tenantType,
} from '../aggregates/tenant-type.ts';
import { sha256Hex } from '../crypto/secrets.ts';
import { type EventMetadata, type RecordedEvent, WrongExpectedVersionError } from '../events/event-store.ts';
import { newId } from '../ids.ts';
import { type CommandDeps, handleCommand } from './command-handler.ts';
import { foldStream } from './fold-stream.ts';

/** The tenant registry's commands (SPEC 2.7, 5.5, 5.7 "Tenants, types": super_admin only, checked by HTTP). */

export interface TenantTypeRecord {
  id: string;
  name: string;
  allows_children: boolean;
}

export interface TenantRecord {
  id: string;
  name: string;
  type_id: string;
  parent_id: string | null;
  /** Root first, the tenant itself last. */
  ancestor_ids: string[];
  status: TenantStatus;
}

export const tenantTypeStream = (typeId: string) => `tenant_type-${typeId}`;
export const tenantStream = (tenantId: string) => `tenant-${tenantId}`;
/** One stream per name, case-insensitively (the read model's unique index is on lower(name)). */
export const tenantTypeNameStream = (name: string) => `tenant_type_name-${sha256Hex(name.toLowerCase())}`;

export async function loadTenantType(
  deps: Pick<CommandDeps, 'store' | 'registry'>,
  typeId: string,
): Promise<TenantTypeRecord | undefined> {
  const state = await foldStream(deps, tenantType, tenantTypeStream(typeId));
  if (state.status === 'none') return undefined;
  return { id: state.typeId, name: state.name, allows_children: state.allowsChildren };
}

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

function existing(state: TenantState): TenantRecord {
  const view = tenantView(state);
  if (!view) throw new Error('a tenant command ended without a tenant');
  return view;
}

/**
 * Brings `tenant_type-<id>` to the claim's facts. Safe to run twice or concurrently (a creation with the
 * same facts is a no-op), so both the claimer and whoever finds its claim unfinished may call it.
 */
async function completeTenantTypeClaim(
  deps: CommandDeps,
  claim: TenantTypeNameReservedData,
  metadata: EventMetadata,
): Promise<void> {
  const command: CreateTenantType = {
    kind: 'create',
    typeId: claim.type_id,
    name: claim.name,
    allowsChildren: claim.allows_children,
  };
  await handleCommand(deps, tenantType, tenantTypeStream(claim.type_id), command, {
    metadata,
    retryOnConflict: true,
  });
}

/** The record a claim stands for, with the claim's own metadata: the audit names who asked, not who finished. */
function claimMetadata(claim: RecordedEvent): EventMetadata {
  return { ...claim.metadata, causation_id: claim.id };
}

export interface CreateTenantTypeInput {
  /** Chosen by the server unless given (tests, imports). */
  typeId?: string;
  name: string;
  allowsChildren: boolean;
}

/**
 * Creates a tenant type with a unique name (case-insensitive). The name is claimed first in
 * `tenant_type_name-<sha256(lower(name))>` with `no_stream`; the claim carries the whole request, so if the
 * process dies before `TenantType.Created`, the next request for that name completes it from the claim
 * (DESIGN.md "Uniqueness uses reservation streams"; docs/decisions.md "Identity"). A request that finds the
 * name claimed answers `409 conflict`, unless it repeats the claim exactly (a retry): then it answers the
 * type with `created: false`.
 */
export async function createTenantType(
  deps: CommandDeps,
  input: CreateTenantTypeInput,
  metadata: EventMetadata,
): Promise<{ type: TenantTypeRecord; created: boolean }> {
  const command: CreateTenantType = {
    kind: 'create',
    typeId: input.typeId ?? newId('tty'),
    name: input.name.trim(),
    allowsChildren: input.allowsChildren,
  };
  // Refused requests never claim: every claim must be completable.
  const check = tenantType.decide(command, tenantType.initialState, { now: deps.now() });
  if (isDomainError(check)) throw check;

  const data: TenantTypeNameReservedData = {
    type_id: command.typeId,
    name: command.name,
    allows_children: command.allowsChildren,
  };
  const claimId = randomUUID();
  const nameStream = tenantTypeNameStream(command.name);
  try {
    const event = deps.registry.encode({ type: 'TenantTypeName.Reserved', data });
    await deps.store.append(nameStream, [{ ...event, id: claimId, metadata }], 'no_stream');
  } catch (error) {
    if (!(error instanceof WrongExpectedVersionError)) throw error;
    const [claim] = await deps.store.read(nameStream);
    if (!claim) throw error;
    const held = deps.registry.decode(claim).data as TenantTypeNameReservedData;
    await completeTenantTypeClaim(deps, held, claimMetadata(claim));
    const retry =
      held.name === data.name &&
      held.allows_children === data.allows_children &&
      (input.typeId === undefined || input.typeId === held.type_id);
    if (!retry) {
      throw new DomainError('conflict', 'A tenant type with this name already exists.', { param: 'name' });
    }
    return {
      type: { id: held.type_id, name: held.name, allows_children: held.allows_children },
      created: false,
    };
  }
  await completeTenantTypeClaim(deps, data, { ...metadata, causation_id: claimId });
  return {
    type: { id: data.type_id, name: data.name, allows_children: data.allows_children },
    created: true,
  };
}

async function parentFacts(deps: CommandDeps, parentId: string | null): Promise<ParentFacts> {
  if (parentId === null) return { kind: 'root' };
  const parent = await loadTenant(deps, parentId);
  if (!parent) return { kind: 'missing', tenantId: parentId };
  const type = await loadTenantType(deps, parent.type_id);
  return {
    kind: 'found',
    tenantId: parent.id,
    ancestorIds: parent.ancestor_ids,
    typeAllowsChildren: type?.allows_children ?? false,
  };
}

export interface CreateTenantInput {
  /** Chosen by the server unless given (tests, imports). */
  tenantId?: string;
  name: string;
  typeId: string;
  /** null for a root tenant. */
  parentId: string | null;
}

/**
 * Creates a tenant under an existing parent whose type allows children (or a root). The facts about the
 * type and the parent are read from their streams and passed in the command; none of them can change
 * afterwards (see ParentFacts), so no lock across streams is needed.
 */
export async function createTenant(
  deps: CommandDeps,
  input: CreateTenantInput,
  metadata: EventMetadata,
): Promise<TenantRecord> {
  const tenantId = input.tenantId ?? newId('ten');
  const [type, parent] = await Promise.all([
    loadTenantType(deps, input.typeId),
    parentFacts(deps, input.parentId),
  ]);
  const r = await handleCommand(
    deps,
    tenant,
    tenantStream(tenantId),
    {
      kind: 'create',
      tenantId,
      name: input.name.trim(),
      typeId: input.typeId,
      typeExists: type !== undefined,
      parent,
    },
    { metadata, retryOnConflict: true },
  );
  return existing(r.state);
}

export interface SuspendTenantOptions {
  /** The acting user's tenant: SPEC 7 `cannot_suspend_self` forbids suspending it or one above it. */
  actorTenantId?: string | null;
}

/**
 * SPEC 5.5: blocks the credentials of the tenant and its whole subtree from the next request. Suspending a
 * suspended tenant appends nothing.
 */
export async function suspendTenant(
  deps: CommandDeps,
  tenantId: string,
  metadata: EventMetadata,
  opts: SuspendTenantOptions = {},
): Promise<TenantRecord> {
  if (opts.actorTenantId) {
    const own = await loadTenant(deps, opts.actorTenantId);
    if (own?.ancestor_ids.includes(tenantId)) {
      throw new DomainError('cannot_suspend_self', 'You cannot suspend your own tenant or one above it.');
    }
  }
  // Re-deciding after a concurrent append is safe: the decision depends on the stream alone.
  const r = await handleCommand(
    deps,
    tenant,
    tenantStream(tenantId),
    { kind: 'suspend' },
    {
      metadata,
      retryOnConflict: true,
    },
  );
  return existing(r.state);
}

/** SPEC 5.5: keys work again after reactivation. Reactivating an active tenant appends nothing. */
export async function reactivateTenant(
  deps: CommandDeps,
  tenantId: string,
  metadata: EventMetadata,
): Promise<TenantRecord> {
  const r = await handleCommand(
    deps,
    tenant,
    tenantStream(tenantId),
    { kind: 'reactivate' },
    {
      metadata,
      retryOnConflict: true,
    },
  );
  return existing(r.state);
}
