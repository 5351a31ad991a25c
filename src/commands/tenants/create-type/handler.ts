import { randomUUID } from 'node:crypto';
import { DomainError, isDomainError } from '../../../aggregates/decider.ts';
import {
  type CreateTenantType,
  type TenantTypeNameReservedData,
  tenantType,
} from '../../../aggregates/tenant-type.ts';
import {
  type EventMetadata,
  type RecordedEvent,
  WrongExpectedVersionError,
} from '../../../events/event-store.ts';
import { newId } from '../../../ids.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import { type TenantTypeRecord, tenantTypeNameStream, tenantTypeStream } from '../tenant-type-record.ts';

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
