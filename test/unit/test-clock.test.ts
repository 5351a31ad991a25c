import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { DomainError, fold } from '../../src/aggregates/decider.ts';
import {
  MAX_ADVANCE_MS,
  type TestClockCommand,
  type TestClockCreatedData,
  type TestClockEvent,
  testClock,
  testClockTransitions,
} from '../../src/aggregates/test-clock.ts';
import { scenario } from '../support/given-when-then.ts';

/**
 * The test clock's decider (issue 26 item 6; docs/decisions.md "Subscriptions (issue 26)" → "Test clocks"):
 * one given/when/then per cell, and a property: the frozen time never goes back, never jumps more than 731
 * days at once, and a deleted clock stays deleted. The oracle is this file's TABLE, never the code's.
 */

const ctx = { now: new Date('2026-11-27T12:00:00Z') };
const T0 = '2027-01-31T12:00:00.000Z';
const DAY = 86_400_000;
const plus = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const data: TestClockCreatedData = {
  test_clock_id: 'clock_a',
  tenant_id: 'ten_a',
  name: null,
  frozen_time: T0,
};

const created: TestClockEvent = { type: 'TestClock.Created', data };
const advanced = (t: string): TestClockEvent => ({
  type: 'TestClock.Advanced',
  data: { test_clock_id: 'clock_a', frozen_time: t },
});
const completed = (t: string): TestClockEvent => ({
  type: 'TestClock.AdvanceCompleted',
  data: { test_clock_id: 'clock_a', frozen_time: t },
});
const deleted: TestClockEvent = { type: 'TestClock.Deleted', data: { test_clock_id: 'clock_a' } };

const create: TestClockCommand = { kind: 'create', data };
const advance = (t: string): TestClockCommand => ({ kind: 'advance', frozenTime: t });
const complete = (t: string): TestClockCommand => ({ kind: 'complete', frozenTime: t });
const del: TestClockCommand = { kind: 'delete' };

const HISTORY = {
  none: [] as TestClockEvent[],
  ready: [created],
  advancing: [created, advanced(plus(DAY))],
  deleted: [created, deleted],
};

/** Transcribed from docs/decisions.md "Test clocks" (the decision, not the code's table). */
const TABLE = {
  none: {
    create: { emits: 'TestClock.Created', to: 'ready' },
    advance: { refuse: 'not_found' },
    complete: { refuse: 'not_found' },
    delete: { refuse: 'not_found' },
  },
  ready: {
    create: { repeat: 'same_facts_or_conflict' },
    advance: { emits: 'TestClock.Advanced', to: 'advancing' },
    complete: { noop: true },
    delete: { emits: 'TestClock.Deleted', to: 'deleted' },
  },
  advancing: {
    create: { repeat: 'same_facts_or_conflict' },
    advance: { refuse: 'conflict' },
    complete: { emits: 'TestClock.AdvanceCompleted', to: 'ready' },
    delete: { emits: 'TestClock.Deleted', to: 'deleted' },
  },
  deleted: {
    create: { refuse: 'not_found' },
    advance: { refuse: 'not_found' },
    complete: { refuse: 'not_found' },
    delete: { refuse: 'not_found' },
  },
};

describe('test clock table, one cell at a time (given/when/then)', () => {
  const s = scenario(testClock);
  test('none x create: Created -> ready at its frozen time', () => {
    const state = s.given([]).when(create).thenEmits([created]);
    assert.ok(state.status === 'ready' && state.frozenTime === T0);
  });
  for (const cmd of [advance(plus(DAY)), complete(T0), del]) {
    test(`none x ${cmd.kind}: 404 not_found`, () => s.given([]).when(cmd).thenFails('not_found'));
    test(`deleted x ${cmd.kind}: 404 not_found`, () =>
      s.given(HISTORY.deleted).when(cmd).thenFails('not_found'));
  }
  test('deleted x create: 404 not_found', () => s.given(HISTORY.deleted).when(create).thenFails('not_found'));
  for (const row of ['ready', 'advancing'] as const) {
    test(`${row} x create: the same facts are a no-op, others 409 conflict`, () => {
      s.given(HISTORY[row]).when(create).thenEmits([]);
      s.given(HISTORY[row])
        .when({ kind: 'create', data: { ...data, name: 'x' } })
        .thenFails('conflict');
    });
    test(`${row} x delete: Deleted -> deleted`, () => {
      assert.equal(s.given(HISTORY[row]).when(del).thenEmits([deleted]).status, 'deleted');
    });
  }
  test('ready x advance forward: Advanced -> advancing at the new time', () => {
    const state = s
      .given(HISTORY.ready)
      .when(advance(plus(DAY)))
      .thenEmits([advanced(plus(DAY))]);
    assert.ok(state.status === 'advancing' && state.frozenTime === plus(DAY));
  });
  test('ready x advance to its own time: no-op (a retry)', () => {
    s.given(HISTORY.ready).when(advance(T0)).thenEmits([]);
    s.given(HISTORY.ready).when(advance('2027-01-31T09:00:00-03:00')).thenEmits([]);
  });
  test('ready x advance backwards: 422 validation_error on frozen_time', () => {
    const error = s
      .given(HISTORY.ready)
      .when(advance(plus(-1)))
      .thenFails('validation_error');
    assert.equal(error.details.param, 'frozen_time');
  });
  test('ready x advance by 731 days passes, by one millisecond more 422 validation_error', () => {
    assert.equal(MAX_ADVANCE_MS, 731 * DAY);
    s.given(HISTORY.ready)
      .when(advance(plus(731 * DAY)))
      .thenEmits([advanced(plus(731 * DAY))]);
    s.given(HISTORY.ready)
      .when(advance(plus(731 * DAY + 1)))
      .thenFails('validation_error');
  });
  test('ready x complete: no-op (nothing in progress)', () => {
    s.given(HISTORY.ready).when(complete(T0)).thenEmits([]);
  });
  test('advancing x advance to the time it is advancing to: no-op (the same advance, retried)', () => {
    s.given(HISTORY.advancing)
      .when(advance(plus(DAY)))
      .thenEmits([]);
  });
  test('advancing x advance to another time: 409 conflict', () => {
    s.given(HISTORY.advancing)
      .when(advance(plus(2 * DAY)))
      .thenFails('conflict');
  });
  test('advancing x complete of its time: AdvanceCompleted -> ready; of another time: no-op', () => {
    const state = s
      .given(HISTORY.advancing)
      .when(complete(plus(DAY)))
      .thenEmits([completed(plus(DAY))]);
    assert.ok(state.status === 'ready' && state.frozenTime === plus(DAY));
    s.given(HISTORY.advancing).when(complete(T0)).thenEmits([]);
  });
});

describe('test clock as a property (fast-check)', () => {
  test('the code table is the transcribed one', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(testClockTransitions)), TABLE);
  });

  const command: fc.Arbitrary<TestClockCommand> = fc.oneof(
    fc.constant(create),
    fc.integer({ min: -2 * DAY, max: 800 * DAY }).map((ms) => advance(plus(ms))),
    fc
      .constant('current' as const)
      .map(() => ({ kind: 'complete', frozenTime: 'current' }) as TestClockCommand),
    fc.constant(del),
  );

  test('time never goes back nor jumps more than 731 days; deleted stays deleted', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 30 }), (commands) => {
        const history: TestClockEvent[] = [created];
        for (const raw of commands) {
          const state = fold(testClock, history);
          const cmd =
            raw.kind === 'complete' && raw.frozenTime === 'current'
              ? complete(state.status === 'ready' || state.status === 'advancing' ? state.frozenTime : T0)
              : raw;
          const decision = testClock.decide(cmd, state, ctx);
          if (decision instanceof DomainError) continue;
          history.push(...decision);
          const next = fold(testClock, history);
          if (state.status === 'deleted') assert.equal(next.status, 'deleted');
          if ((state.status === 'ready' || state.status === 'advancing') && next.status !== 'deleted') {
            assert.ok(next.status !== 'none');
            const step = Date.parse(next.frozenTime) - Date.parse(state.frozenTime);
            assert.ok(step >= 0 && step <= MAX_ADVANCE_MS, `${state.frozenTime} -> ${next.frozenTime}`);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
