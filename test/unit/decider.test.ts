import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { fold } from '../../src/aggregates/decider.ts';
import { UnknownEventTypeError } from '../../src/events/event-registry.ts';
import {
  type CounterCommand,
  type CounterEvent,
  counter,
  counterRegistry,
} from '../support/counter-decider.ts';
import { scenario } from '../support/given-when-then.ts';

describe('decider helpers (DESIGN.md "Aggregates are deciders")', () => {
  test('given/when/then: events out of a valid command', () => {
    const state = scenario(counter)
      .given([{ type: 'Counter.Incremented', data: { by: 2 } }])
      .when({ kind: 'increment', by: 3 })
      .thenEmits([{ type: 'Counter.Incremented', data: { by: 3 } }]);
    assert.deepEqual(state, { total: 5, closed: false });
  });

  test('given/when/then: a refused command is a typed domain error', () => {
    scenario(counter)
      .given([{ type: 'Counter.Closed', data: { at: '2026-01-01T00:00:00.000Z' } }])
      .when({ kind: 'increment', by: 1 })
      .thenFails('conflict');
  });

  test('time comes from ctx.now, never the clock', () => {
    const now = new Date('2030-05-06T07:08:09.000Z');
    scenario(counter)
      .given([])
      .when({ kind: 'close' }, { now })
      .thenEmits([{ type: 'Counter.Closed', data: { at: now.toISOString() } }]);
  });

  test('property: deciding then evolving equals folding the decided events', () => {
    const command = fc.oneof(
      fc.record({ kind: fc.constant('increment' as const), by: fc.integer({ min: -1000, max: 1000 }) }),
      fc.constant({ kind: 'close' as const }),
    );
    fc.assert(
      fc.property(fc.array(command, { maxLength: 30 }), (commands: CounterCommand[]) => {
        const history: CounterEvent[] = [];
        for (const c of commands) {
          const d = counter.decide(c, fold(counter, history), { now: new Date(0) });
          if (Array.isArray(d)) history.push(...d);
        }
        const state = fold(counter, history);
        const expected = history.reduce((s, e) => (e.type === 'Counter.Incremented' ? s + e.data.by : s), 0);
        assert.equal(state.total, expected);
        // Nothing is ever decided after a close.
        const closedAt = history.findIndex((e) => e.type === 'Counter.Closed');
        assert.ok(closedAt === -1 || closedAt === history.length - 1);
      }),
    );
  });
});

describe('event registry: versioned payloads, upcast on read', () => {
  test('encode stamps the current schema version and validates', () => {
    assert.deepEqual(counterRegistry.encode({ type: 'Counter.Incremented', data: { by: 4 } }), {
      type: 'Counter.Incremented',
      schemaVersion: 2,
      data: { by: 4 },
    });
    assert.throws(() => counterRegistry.encode({ type: 'Counter.Incremented', data: { by: 1.5 } }));
  });

  test('an old stored shape is upcast, never rewritten', () => {
    const stored = { type: 'Counter.Incremented', schemaVersion: 1, data: { step: 7 } };
    assert.deepEqual(counterRegistry.decode(stored), { type: 'Counter.Incremented', data: { by: 7 } });
    assert.deepEqual(stored.data, { step: 7 });
  });

  test('an unknown type is an error, not a silent skip', () => {
    assert.throws(
      () => counterRegistry.decode({ type: 'Nope', schemaVersion: 1, data: {} }),
      UnknownEventTypeError,
    );
  });
});
