import { randomUUID } from 'node:crypto';
import { DomainError, isDomainError } from '../../../aggregates/decider.ts';
import {
  type SubaccountCommand,
  type SubaccountEvent,
  type SubaccountReservedData,
  type SubaccountState,
  subaccount,
} from '../../../aggregates/subaccount.ts';
import type { CreateSubaccountBody } from '../../../contract/subaccounts.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { newId } from '../../../ids.ts';
import type { Outcome, RemoteSubaccount } from '../../../providers/port.ts';
import { handleCommand } from '../../command-handler.ts';
import { type JsonValue, requestHash } from '../../idempotency.ts';
import { callProvider, unsentRefusal } from '../../provider-call.ts';
import { type ReservedCreation, type ReservedResource, reservedCreations } from '../../reserved-creation.ts';
import { loadTenant } from '../../tenants/tenant-record.ts';
import {
  matrixOrNull,
  portSubaccount,
  resolveMatrix,
  type SubaccountCtx,
  staticMessage,
} from '../provider.ts';
import { type LoadedSubaccount, loadSubaccount, sealTokens, subaccountStream } from '../record.ts';
import { withKeyedBankAccount } from '../request-hash-body.ts';

/** Where the claim's payload keeps the reservation (stored claims are read by it: never rename). */
const PAYLOAD_KEY = 'subaccount';

export type SubaccountCreation = ReservedCreation<LoadedSubaccount>;

/**
 * `POST /admin/subaccounts` (SPEC 2.8, 3.6, 4.14). Checks first (reads only: a refusal stores nothing): the
 * provider is an external marketplace one, the tenant exists, an encryption key is configured. Then
 * reserve -> call -> record: the claim (scope: the provider, so the key is idempotent by provider + key) and
 * `Reserved` commit together; only the request that appended `Reserved` calls the provider, with the bank
 * account it holds in memory (never stored: the claim keeps only the request's hash); the answer is recorded
 * (`Created` with sealed tokens, `Failed`, `Uncertain`). A replay answers the record as it is now.
 */
export async function createSubaccount(
  ctx: SubaccountCtx,
  input: { body: CreateSubaccountBody; idempotencyKey: string; route: string },
  metadata: EventMetadata,
): Promise<SubaccountCreation> {
  const b = input.body;
  const deps = { store: ctx.store, registry: ctx.events, now: () => ctx.now() };
  // Also proves the credentials open (so the tokens can be sealed) before anything is reserved.
  await resolveMatrix(ctx, b.provider_id);
  if (!(await loadTenant(deps, b.tenant_id))) {
    throw new DomainError('validation_error', 'tenant_id names no tenant.', { param: 'tenant_id' });
  }
  const hash = requestHash('POST', input.route, await withKeyedBankAccount(ctx.config, b));
  const subaccountId = newId('sac');
  const data: SubaccountReservedData = {
    subaccount_id: subaccountId,
    provider_id: b.provider_id,
    tenant_id: b.tenant_id,
    name: b.name.trim(),
    document: b.document,
    email: b.email.trim().toLowerCase(),
  };
  const probe = subaccount.decide({ kind: 'reserve', data }, subaccount.initialState, { now: ctx.now() });
  if (isDomainError(probe)) throw probe;
  const claimInput = {
    scope: b.provider_id,
    key: input.idempotencyKey,
    method: 'POST',
    route: input.route,
    // Only the hash is stored (requestHash, over the bank account's keyed hash): never the bank account.
    body: b,
    requestHash: hash,
    resourceId: subaccountId,
    payload: { [PAYLOAD_KEY]: JSON.parse(JSON.stringify(data)) as JsonValue },
  };
  const reservedEvent = { ...ctx.events.encode(probe[0] as never), id: randomUUID(), metadata };
  return reservedCreations(deps, reservedSubaccount(ctx, b, metadata), metadata).create(
    claimInput,
    reservedEvent,
  );
}

/** The subaccount as a reserved creation: reserved by `reserve`, then its one provider call. */
function reservedSubaccount(
  ctx: SubaccountCtx,
  body: CreateSubaccountBody,
  metadata: EventMetadata,
): ReservedResource<
  SubaccountReservedData,
  SubaccountCommand,
  SubaccountEvent,
  SubaccountState,
  LoadedSubaccount
> {
  return {
    decider: subaccount,
    stream: subaccountStream,
    reserve: (data) => ({ kind: 'reserve', data }),
    payloadKey: PAYLOAD_KEY,
    load: (id) => loadSubaccount({ store: ctx.store, registry: ctx.events }, id),
    callAndRecord: (id) => callAndRecord(ctx, id, body, metadata),
  };
}

/** The one creation call and its answer recorded (SPEC 3.6). */
async function callAndRecord(
  ctx: SubaccountCtx,
  subaccountId: string,
  body: CreateSubaccountBody,
  metadata: EventMetadata,
): Promise<LoadedSubaccount> {
  const matrix = await matrixOrNull(ctx, body.provider_id);
  const answer: Outcome<{ readonly subaccount: RemoteSubaccount }> = matrix
    ? await callProvider(() => matrix.capability.create(portSubaccount(body), matrix.context()))
    : unsentRefusal();
  const command = await commandOf(ctx, subaccountId, body.provider_id, answer, 'creation');
  return record(ctx, subaccountId, command, metadata);
}

/** A provider answer as the decider's command; tokens sealed here, at once. */
export async function commandOf(
  ctx: SubaccountCtx,
  subaccountId: string,
  providerId: string,
  answer: Outcome<{ readonly subaccount: RemoteSubaccount }>,
  via: 'creation' | 'consult' | 'link',
): Promise<SubaccountCommand> {
  if (answer.kind === 'issued') {
    return {
      kind: 'record_created',
      providerReference: answer.subaccount.providerReference,
      tokensCiphertext: await sealTokens(ctx.config, subaccountId, providerId, answer.subaccount.credentials),
      via,
    };
  }
  if (answer.kind === 'refused') {
    return {
      kind: 'record_failed',
      errorCode: answer.reason,
      providerErrorCode: answer.diagnostics.provider_error_code,
      message: staticMessage(answer.reason),
    };
  }
  return { kind: 'record_uncertain', errorCode: answer.reason, providerReference: answer.providerReference };
}

export async function record(
  ctx: SubaccountCtx,
  subaccountId: string,
  command: SubaccountCommand,
  metadata: EventMetadata,
): Promise<LoadedSubaccount> {
  await handleCommand(
    { store: ctx.store, registry: ctx.events, now: () => ctx.now() },
    subaccount,
    subaccountStream(subaccountId),
    command,
    { metadata, retryOnConflict: true },
  );
  const loaded = await loadSubaccount({ store: ctx.store, registry: ctx.events }, subaccountId);
  if (!loaded) throw new Error(`${subaccountStream(subaccountId)} missing after its answer`);
  return loaded;
}
