import { type Decider, type DomainEvent, fold } from '../aggregates/decider.ts';
import type { CommandDeps } from './command-handler.ts';

/**
 * The current state of one aggregate, folded from its stream (always consistent, unlike a read model).
 * Commands use it to pass facts about other aggregates into a decider, which sees only its own stream.
 */
export async function foldStream<E extends DomainEvent, S>(
  deps: Pick<CommandDeps, 'store' | 'registry'>,
  decider: Pick<Decider<never, E, S>, 'initialState' | 'evolve'>,
  stream: string,
): Promise<S> {
  const recorded = await deps.store.read(stream);
  return fold(
    decider,
    recorded.map((r) => deps.registry.decode(r) as E),
  );
}
