import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/event-registry.ts';
import { type Decider, DomainError } from './decider.ts';
import type { TransitionTable } from './transition-table.ts';

/**
 * A test clock (issue 26 item 6; stream `test_clock-<id>`; docs/decisions.md "Subscriptions (issue 26)" →
 * "Test clocks"; Stripe's test clocks are the model). A test-mode subscription attached to one lives in the
 * clock's frozen time instead of the system's; the integrator moves that time forward, and the scheduler runs
 * the clock's subscriptions up to it. An advance is two facts: `Advanced` (the time moved, the clock is
 * `advancing`) and `AdvanceCompleted` (its subscriptions ran, `ready` again), so a crash between them leaves
 * a clock that the same advance, repeated, finishes.
 */

export const TEST_CLOCK_STATUSES = ['ready', 'advancing'] as const;
export type TestClockStatus = (typeof TEST_CLOCK_STATUSES)[number];

/** One advance moves the clock at most this far (731 days: two years, a leap day included). */
export const MAX_ADVANCE_MS = 731 * 86_400_000;

const testClockId = z.string().startsWith('clock_');
const instant = z.iso.datetime();

const createdData = z.strictObject({
  test_clock_id: testClockId,
  tenant_id: z.string().startsWith('ten_'),
  name: z.string().nullable(),
  frozen_time: instant,
});
export type TestClockCreatedData = z.infer<typeof createdData>;
const timeData = z.strictObject({ test_clock_id: testClockId, frozen_time: instant });
const idOnly = z.strictObject({ test_clock_id: testClockId });

export interface OpenedTestClock {
  readonly status: TestClockStatus;
  readonly created: TestClockCreatedData;
  /** The clock's time: what `now` is for its subscriptions. */
  readonly frozenTime: string;
  /** While advancing: the time it moved from, where its subscriptions' catch-up starts (even after a crash). */
  readonly advancingFrom: string | null;
}

export type TestClockState = { readonly status: 'none' } | { readonly status: 'deleted' } | OpenedTestClock;

export const testClockEvents = [
  defineEvent({
    type: 'TestClock.Created',
    audit: { action: 'test_clock.created', when: 'a test clock was created' },
    schema: createdData,
  }),
  defineEvent({
    type: 'TestClock.Advanced',
    audit: {
      action: 'test_clock.advanced',
      when: "a test clock's frozen time moved forward; its subscriptions run up to it",
    },
    schema: timeData,
  }),
  defineEvent({
    type: 'TestClock.AdvanceCompleted',
    audit: {
      action: 'test_clock.advance_completed',
      when: "a test clock's subscriptions ran up to its frozen time; the clock is ready again",
    },
    schema: timeData,
  }),
  defineEvent({
    type: 'TestClock.Deleted',
    audit: { action: 'test_clock.deleted', when: 'a test clock was deleted' },
    schema: idOnly,
  }),
];

export type TestClockEvent = EventOf<(typeof testClockEvents)[number]>;

export type TestClockCommand =
  | { readonly kind: 'create'; readonly data: TestClockCreatedData }
  /** Move to `frozenTime` (ISO instant). */
  | { readonly kind: 'advance'; readonly frozenTime: string }
  /** The subscriptions of the clock ran up to `frozenTime`. */
  | { readonly kind: 'complete'; readonly frozenTime: string }
  | { readonly kind: 'delete' };

/**
 * State table (ours: issue 26 item 6, docs/decisions.md "Test clocks"). `=` no-op; 404 = not_found.
 *
 *  state     |create                  |advance (t)                          |complete (t)                 |delete
 *  ----------+------------------------+-------------------------------------+-----------------------------+-----------------
 *  none      |Created -> ready        |404                                  |404                          |404
 *  ready     |same facts =; else 409  |(f) Advanced -> advancing            |=                            |Deleted -> deleted
 *  advancing |same facts =; else 409  |t = frozen: =; else 409 conflict     |t = frozen: AdvanceCompleted |Deleted -> deleted
 *            |                        |                                     |  -> ready; else =            |
 *  deleted   |404                     |404                                  |404                          |404
 *
 *  - (f) forward only: t earlier than the frozen time, or more than MAX_ADVANCE_MS after it, is 422
 *    validation_error (param frozen_time); t equal to it is a no-op (a retried advance, which runs the clock's
 *    subscriptions again and changes nothing they already did).
 *  - An advancing clock takes no other target until its run completes (Stripe: one advance at a time).
 */
export const testClockTransitions: TransitionTable<
  TestClockStatus | 'deleted',
  TestClockCommand['kind'],
  TestClockEvent['type']
> = {
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

const MESSAGES = {
  not_found: 'The test clock does not exist.',
  conflict: 'The test clock is advancing to another time; wait until it is ready.',
} as const;

function invalidTime(message: string): DomainError {
  return new DomainError('validation_error', message, { param: 'frozen_time' });
}

export const testClock: Decider<TestClockCommand, TestClockEvent, TestClockState> = {
  initialState: { status: 'none' },

  evolve(state, event) {
    if (event.type === 'TestClock.Created') {
      return {
        status: 'ready',
        created: event.data,
        frozenTime: event.data.frozen_time,
        advancingFrom: null,
      };
    }
    if (state.status === 'none' || state.status === 'deleted') return state;
    switch (event.type) {
      case 'TestClock.Advanced':
        return {
          ...state,
          status: 'advancing',
          frozenTime: event.data.frozen_time,
          advancingFrom: state.frozenTime,
        };
      case 'TestClock.AdvanceCompleted':
        return { ...state, status: 'ready', advancingFrom: null };
      case 'TestClock.Deleted':
        return { status: 'deleted' };
    }
  },

  decide(command, state) {
    const move = testClockTransitions[state.status][command.kind];
    if ('refuse' in move) {
      const code = move.refuse;
      // An advancing clock asked for the time it is advancing to: the same advance, retried.
      if (
        code === 'conflict' &&
        state.status === 'advancing' &&
        command.kind === 'advance' &&
        sameInstant(command.frozenTime, state.frozenTime)
      ) {
        return [];
      }
      return new DomainError(code, code === 'conflict' ? MESSAGES.conflict : MESSAGES.not_found);
    }
    if ('noop' in move) return [];
    if (command.kind === 'create') {
      if (state.status === 'none') return [{ type: 'TestClock.Created', data: command.data }];
      if (state.status === 'deleted') return new DomainError('not_found', MESSAGES.not_found);
      const same = JSON.stringify(state.created) === JSON.stringify(command.data);
      return same ? [] : new DomainError('conflict', 'This test clock already exists with other values.');
    }
    if (state.status === 'none' || state.status === 'deleted') {
      return new DomainError('not_found', MESSAGES.not_found);
    }
    const id = state.created.test_clock_id;
    switch (command.kind) {
      case 'advance': {
        const from = Date.parse(state.frozenTime);
        const to = Date.parse(command.frozenTime);
        if (to === from) return [];
        if (to < from) return invalidTime('A test clock only moves forward: frozen_time is before its time.');
        if (to - from > MAX_ADVANCE_MS) {
          return invalidTime('A test clock moves at most 731 days per advance.');
        }
        return [
          {
            type: 'TestClock.Advanced',
            data: { test_clock_id: id, frozen_time: new Date(to).toISOString() },
          },
        ];
      }
      case 'complete':
        if (!sameInstant(command.frozenTime, state.frozenTime)) return [];
        return [
          { type: 'TestClock.AdvanceCompleted', data: { test_clock_id: id, frozen_time: state.frozenTime } },
        ];
      case 'delete':
        return [{ type: 'TestClock.Deleted', data: { test_clock_id: id } }];
    }
  },
};

function sameInstant(a: string, b: string): boolean {
  return Date.parse(a) === Date.parse(b);
}
