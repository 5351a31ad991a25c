import type { Decider, DomainEvent } from '../aggregates/decider.ts';
import type { EventMetadata, NewEvent } from '../events/event-store.ts';
import { type CommandDeps, handleCommand } from './command-handler.ts';
import {
  type ClaimInput,
  claimIdempotencyKey,
  claimIdempotencyKeyWith,
  type IdempotencyClaim,
} from './idempotency.ts';

/**
 * A creation that reserves its record before its one provider call (SPEC 3.1 reserve -> call -> record;
 * Pix Automatic authorizations, subaccounts): the idempotency claim and `Reserved` commit in one SQL
 * transaction (EventStoreDB: the claim, then `Reserved`, completed by a replay after a crash between them);
 * only the request that appended `Reserved` calls the provider, so the call is made once whatever the
 * concurrency; a replay answers the record as it is now, never calling the provider again.
 */
export interface ReservedResource<D, C, E extends DomainEvent, S, L> {
  readonly decider: Decider<C, E, S>;
  readonly stream: (id: string) => string;
  /** The reservation command of the claim's data. */
  readonly reserve: (data: D) => C;
  /** Where the claim's payload keeps the data (stored claims are read by it: never rename). */
  readonly payloadKey: string;
  /** The record folded from its stream; none before its reservation. */
  readonly load: (id: string) => Promise<L | null | undefined>;
  /** The one provider call and its answer recorded, by the request that appended `Reserved`. */
  readonly callAndRecord: (id: string) => Promise<L>;
}

export interface ReservedCreation<L> {
  readonly loaded: L;
  /** This request reserved it (and called the provider); false for a replay. */
  readonly created: boolean;
}

/** A resource's reserved creations, for one request. */
export interface ReservedCreations<L> {
  /** A new claim (its resource id, and the data at `payloadKey`) with its encoded `Reserved` event. */
  create(claim: ClaimInput, reserved: NewEvent): Promise<ReservedCreation<L>>;
  /** A replay: the record as it is now; a claim whose Reserved is missing (a crash between them) is completed. */
  replay(claim: IdempotencyClaim): Promise<ReservedCreation<L>>;
}

export function reservedCreations<D, C, E extends DomainEvent, S, L>(
  deps: CommandDeps,
  resource: ReservedResource<D, C, E, S, L>,
  metadata: EventMetadata,
): ReservedCreations<L> {
  // Appends the claim's Reserved; whoever appends it, and only they, calls the provider.
  const complete = async (claim: IdempotencyClaim, created: boolean): Promise<ReservedCreation<L>> => {
    const id = claim.resource_id;
    const data = claim.payload[resource.payloadKey] as unknown as D;
    const r = await handleCommand(deps, resource.decider, resource.stream(id), resource.reserve(data), {
      metadata,
      retryOnConflict: true,
    });
    if (r.events.length > 0) return { loaded: await resource.callAndRecord(id), created };
    const loaded = await resource.load(id);
    if (!loaded) throw new Error(`${resource.stream(id)} missing after its reservation`);
    return { loaded, created: false };
  };
  const replay = async (claim: IdempotencyClaim): Promise<ReservedCreation<L>> => {
    const loaded = await resource.load(claim.resource_id);
    if (loaded) return { loaded, created: false };
    return complete(claim, false);
  };
  const create = async (claim: ClaimInput, reserved: NewEvent): Promise<ReservedCreation<L>> => {
    const id = claim.resourceId;
    const together = await claimIdempotencyKeyWith(deps, claim, metadata, {
      stream: resource.stream(id),
      events: [reserved],
    });
    if (together?.first) return { loaded: await resource.callAndRecord(id), created: true };
    if (together) return replay(together.claim);
    // A store without multi-stream transactions (EventStoreDB): claim, then Reserved.
    const claimed = await claimIdempotencyKey(deps, claim, metadata);
    if (!claimed.first) return replay(claimed.claim);
    return complete(claimed.claim, true);
  };
  return { create, replay };
}
