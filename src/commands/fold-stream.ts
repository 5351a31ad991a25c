import { type Decider, type DomainEvent, fold } from '../aggregates/decider.ts';
import type { EventStore, RecordedEvent } from '../events/event-store.ts';
import type { CommandDeps } from './command-handler.ts';

type Folding<E extends DomainEvent, S> = Pick<Decider<never, E, S>, 'initialState' | 'evolve'>;

/**
 * The current state of one aggregate, folded from its stream (always consistent, unlike a read model).
 * Commands use it to pass facts about other aggregates into a decider, which sees only its own stream.
 */
export async function foldStream<E extends DomainEvent, S>(
  deps: Pick<CommandDeps, 'store' | 'registry'>,
  decider: Folding<E, S>,
  stream: string,
): Promise<S> {
  const recorded = await deps.store.read(stream);
  return fold(
    decider,
    recorded.map((r) => deps.registry.decode(r) as E),
  );
}

/** A stream's fold with its last version and the recorded times of its first and last events. */
export interface FoldedStream<S> {
  readonly state: S;
  /** The stream's last version (for an expected-version append). */
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** A state past `{ status: 'none' }`, the state of an aggregate before its first event. */
export type Existing<S> = Exclude<S, { readonly status: 'none' }>;

/**
 * {@link FoldedStream} of an aggregate that exists; undefined before its first event. Its times are those the
 * read models store as `created_at` and `updated_at`. `decode` is the registry's: `decodeStored` for
 * aggregates whose schemas return what they accept, `decode` (validating again) otherwise.
 */
export async function foldExisting<E extends DomainEvent, S extends { readonly status: string }>(
  store: Pick<EventStore, 'read'>,
  decode: (event: RecordedEvent) => DomainEvent,
  decider: Folding<E, S>,
  stream: string,
): Promise<FoldedStream<Existing<S>> | undefined> {
  const recorded = await store.read(stream);
  const first = recorded[0];
  const last = recorded.at(-1);
  if (!first || !last) return undefined;
  const state = fold(
    decider,
    recorded.map((r) => decode(r) as E),
  );
  if (state.status === 'none') return undefined;
  return {
    state: state as Existing<S>,
    version: last.version,
    createdAt: first.recordedAt,
    updatedAt: last.recordedAt,
  };
}
