import type { DomainEvent } from '../events/domain-event.ts';
import type { ErrorCode } from './errors.ts';

/**
 * Aggregates are deciders (DESIGN.md): pure functions of (command, state, ctx). No I/O, no clock (time comes
 * in ctx.now), no randomness (ids come in the command). State tables of SPEC.md section 3 live beside them.
 */

export type { DomainEvent } from '../events/domain-event.ts';

export interface DecideContext {
  readonly now: Date;
}

/** A refused command. `code` is a SPEC.md section 7 error code; the HTTP layer maps it to a status. */
export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }
}

export type Decision<E> = readonly E[] | DomainError;

export interface Decider<C, E extends DomainEvent, S> {
  readonly initialState: S;
  evolve(state: S, event: E): S;
  decide(command: C, state: S, ctx: DecideContext): Decision<E>;
}

export function fold<E extends DomainEvent, S>(
  decider: Pick<Decider<never, E, S>, 'initialState' | 'evolve'>,
  events: Iterable<E>,
): S {
  let state = decider.initialState;
  for (const event of events) state = decider.evolve(state, event);
  return state;
}

export function isDomainError(value: unknown): value is DomainError {
  return value instanceof DomainError;
}
