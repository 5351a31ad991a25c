import { z } from 'zod';
import { type Decider, DomainError, type DomainEvent } from '../../src/aggregates/decider.ts';
import { defineEvent, EventRegistry } from '../../src/events/event-registry.ts';

/** A minimal decider used to test the decider, command and projection machinery itself. */
export type CounterEvent =
  | DomainEvent<'Counter.Incremented', { by: number }>
  | DomainEvent<'Counter.Closed', { at: string }>;
export type CounterCommand = { kind: 'increment'; by: number } | { kind: 'close' };
export interface CounterState {
  total: number;
  closed: boolean;
}

export const counter: Decider<CounterCommand, CounterEvent, CounterState> = {
  initialState: { total: 0, closed: false },
  evolve(state, event) {
    switch (event.type) {
      case 'Counter.Incremented':
        return { ...state, total: state.total + event.data.by };
      case 'Counter.Closed':
        return { ...state, closed: true };
    }
  },
  decide(command, state, ctx) {
    if (state.closed) return new DomainError('conflict', 'the counter is closed');
    switch (command.kind) {
      case 'increment':
        if (command.by === 0) return [];
        return [{ type: 'Counter.Incremented', data: { by: command.by } }];
      case 'close':
        return [{ type: 'Counter.Closed', data: { at: ctx.now.toISOString() } }];
    }
  },
};

export const counterRegistry = new EventRegistry([
  defineEvent({
    type: 'Counter.Incremented',
    version: 2,
    schema: z.object({ by: z.number().int() }),
    // Version 1 stored the amount as `step`.
    upcasters: { 1: (old) => ({ by: (old as { step: number }).step }) },
  }),
  defineEvent({ type: 'Counter.Closed', version: 1, schema: z.object({ at: z.string() }) }),
]);
