import { randomUUID } from 'node:crypto';
import { type Decider, type DomainEvent, fold, isDomainError } from '../aggregates/decider.ts';
import type { EventRegistry } from '../events/event-registry.ts';
import {
  type EventMetadata,
  type EventStore,
  type NewEvent,
  WrongExpectedVersionError,
} from '../events/event-store.ts';

export interface CommandDeps {
  store: EventStore;
  registry: EventRegistry;
  now: () => Date;
  newEventId?: () => string;
}

export interface HandleOptions<S = unknown> {
  metadata: EventMetadata;
  /**
   * The stream's state and version as the caller already knows them (it has just appended them, or knows the
   * stream cannot exist yet): the first attempt decides from these instead of reading the stream, saving a
   * round trip. The append still checks the version, so a stale `from` only costs a conflict, after which
   * `retryOnConflict` re-reads the stream as usual.
   */
  from?: { state: S; version: number };
  /**
   * Re-read and re-decide after a concurrent append. Only for commands whose decision depends on nothing
   * but the stream (no external call was made on the strength of the stale state).
   */
  retryOnConflict?: boolean;
  maxAttempts?: number;
}

export interface HandleResult<E, S> {
  /** Events appended by this command (empty when the decision was a no-op). */
  events: readonly E[];
  state: S;
  /** The stream's version after the command. */
  version: number;
  /** Global position of the last appended event, when something was appended. */
  position?: number;
  /** When the store recorded the appended events, if its append says so (PostgreSQL). */
  recordedAt?: Date;
}

/**
 * Read the stream, fold it, decide, append with the version that was read (DESIGN.md "Command handlers").
 * A refused decision throws its DomainError; a lost race throws WrongExpectedVersionError unless
 * `retryOnConflict` allows re-deciding.
 */
export async function handleCommand<C, E extends DomainEvent, S>(
  deps: CommandDeps,
  decider: Decider<C, E, S>,
  stream: string,
  command: C,
  opts: HandleOptions<S>,
): Promise<HandleResult<E, S>> {
  const attempts = opts.retryOnConflict ? (opts.maxAttempts ?? 5) : 1;
  let known = opts.from;
  for (let attempt = 1; ; attempt++) {
    let state: S;
    let version: number;
    if (known) {
      ({ state, version } = known);
      known = undefined;
    } else {
      const recorded = await deps.store.read(stream);
      state = fold(
        decider,
        recorded.map((r) => deps.registry.decode(r) as E),
      );
      version = recorded.length;
    }
    const decision = decider.decide(command, state, { now: deps.now() });
    if (isDomainError(decision)) throw decision;
    if (decision.length === 0) return { events: [], state, version };
    const newEvents: NewEvent[] = decision.map((e) => ({
      ...deps.registry.encode(e),
      id: (deps.newEventId ?? randomUUID)(),
      metadata: opts.metadata,
    }));
    try {
      const appended = await deps.store.append(stream, newEvents, version === 0 ? 'no_stream' : version);
      let next = state;
      for (const e of decision) next = decider.evolve(next, e);
      return {
        events: decision,
        state: next,
        version: appended.version,
        position: appended.position,
        ...(appended.recordedAt ? { recordedAt: appended.recordedAt } : {}),
      };
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError) || attempt >= attempts) throw error;
    }
  }
}
