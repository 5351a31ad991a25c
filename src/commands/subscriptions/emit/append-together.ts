import { randomUUID } from 'node:crypto';
import { type Decider, type DomainEvent, isDomainError } from '../../../aggregates/decider.ts';
import { type EventMetadata, WrongExpectedVersionError } from '../../../events/event-store.ts';
import type { CommandDeps } from '../../command-handler.ts';

/** A stream's state and version as the caller last folded or appended it. */
export interface Known<S> {
  readonly state: S;
  readonly version: number;
}

/** One command decided on a known state, ready to be appended with others. */
export interface Decided<E extends DomainEvent, S> {
  readonly stream: string;
  readonly events: readonly E[];
  /** The version the events are appended at (0: the stream must not exist). */
  readonly from: number;
  /** The state and version once the events are in. */
  readonly after: Known<S>;
}

/**
 * `command` decided on `known` (what handleCommand would decide without reading), or undefined when the
 * decision is a refusal or a no-op: then the caller takes the one-stream-at-a-time path, which reads and
 * answers those as it always has.
 */
export function decideOn<C, E extends DomainEvent, S>(
  deps: CommandDeps,
  decider: Decider<C, E, S>,
  stream: string,
  command: C,
  known: Known<S>,
): Decided<E, S> | undefined {
  const decision = decider.decide(command, known.state, { now: deps.now() });
  if (isDomainError(decision) || decision.length === 0) return undefined;
  let state = known.state;
  for (const e of decision) state = decider.evolve(state, e);
  return {
    stream,
    events: decision,
    from: known.version,
    after: { state, version: known.version + decision.length },
  };
}

/**
 * Appends the decided parts in one transaction of the store (`appendMany`: all or nothing, each stream at the
 * version its decision was made on, with its inline projections), in the order given. Answers false when the
 * store has no multi-stream append (EventStoreDB) or a stream moved since its state was known (another
 * worker, a status change): nothing was written, and the caller goes on one stream at a time, re-reading
 * as handleCommand does. Issue 26 item 8: one commit instead of one per stream (docs/decisions.md).
 */
export async function appendTogether(
  deps: CommandDeps,
  metadata: EventMetadata,
  parts: readonly Decided<DomainEvent, unknown>[],
): Promise<boolean> {
  const appendMany = deps.store.appendMany?.bind(deps.store);
  if (!appendMany) return false;
  try {
    await appendMany(
      parts.map((p) => ({
        stream: p.stream,
        expected: p.from === 0 ? ('no_stream' as const) : p.from,
        events: p.events.map((e) => ({
          ...deps.registry.encode(e),
          id: (deps.newEventId ?? randomUUID)(),
          metadata,
        })),
      })),
    );
    return true;
  } catch (error) {
    if (error instanceof WrongExpectedVersionError) return false;
    throw error;
  }
}
