import type { Decider, DomainEvent } from '../aggregates/decider.ts';
import type { CommandDeps } from './command-handler.ts';
import { type Existing, foldStream } from './fold-stream.ts';

/** An aggregate's record as commands answer it, folded from its own stream (consistent after a command). */
export interface AggregateRecord<S, V> {
  /** The record a command ended with (every command of the aggregate ends with one). */
  commanded(state: S): V;
  /** The record folded from its stream; undefined when it does not exist. */
  load(deps: Pick<CommandDeps, 'store' | 'registry'>, id: string): Promise<V | undefined>;
}

/**
 * The record of an aggregate whose state is `{ status: 'none' }` until its first event: `show` says what the
 * API sees of an existing state (never a secret), `what` names the aggregate in the invariant's message.
 */
export function aggregateRecord<E extends DomainEvent, S extends { readonly status: string }, V>(
  decider: Pick<Decider<never, E, S>, 'initialState' | 'evolve'>,
  stream: (id: string) => string,
  show: (state: Existing<S>) => V,
  what: string,
): AggregateRecord<S, V> {
  const view = (state: S) => (state.status === 'none' ? undefined : show(state as Existing<S>));
  return {
    commanded(state) {
      const record = view(state);
      if (record === undefined) throw new Error(`${what}: a command ended without a record`);
      return record;
    },
    load: async (deps, id) => view(await foldStream(deps, decider, stream(id))),
  };
}
