import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import {
  SESSION_TTL_MS,
  type SessionCommand,
  type SessionEvent,
  sessionDecider,
  sessionTransitions,
} from '../../src/aggregates/session.ts';
import { scenario } from '../support/given-when-then.ts';
import { stepByTable, transcribedTable } from '../support/state-table.ts';

const now = new Date('2026-03-01T09:00:00.000Z');
const digest = 'a'.repeat(64);
const start: SessionCommand = { kind: 'start', session_id: 'ses_1', user_id: 'usr_1', token_sha256: digest };
const started: SessionEvent = {
  type: 'Session.Started',
  data: {
    session_id: 'ses_1',
    user_id: 'usr_1',
    token_sha256: digest,
    expires_at: '2026-03-01T17:00:00.000Z',
  },
};
const ended: SessionEvent = { type: 'Session.Ended', data: { session_id: 'ses_1', reason: 'logout' } };

/**
 * SPEC 5.6's session table, transcribed here (issue 24 item 7): the oracle of the property
 * below, never `sessionTransitions`, so a wrong cell in the code fails.
 */
const SESSION_TABLE = transcribedTable(
  [
    `
    # SPEC 5.6 rule 6: a session is started at login and "revoked on logout"; a session id starts once, a
    # second logout is a safe retry, a session that never started is not found.
    state   | start           | end
    none    | Started>started | not_found
    started | conflict        | Ended>ended
    ended   | conflict        | =
    `,
  ],
  'Session.',
);

describe('session decider: the SPEC 5.6 session state table', () => {
  test('SPEC 5.6/8: a session starts with expires_at 8 hours after ctx.now', () => {
    scenario(sessionDecider).given([]).when(start, { now }).thenEmits([started]);
    assert.equal(SESSION_TTL_MS, 8 * 3600 * 1000);
  });

  test('SPEC 5.6: only the token digest enters the event', () => {
    const decision = sessionDecider.decide(start, sessionDecider.initialState, { now });
    assert.ok(Array.isArray(decision));
    assert.deepEqual(Object.keys(decision[0]?.data ?? {}).sort(), [
      'expires_at',
      'session_id',
      'token_sha256',
      'user_id',
    ]);
  });

  test('SPEC 5.6: logout ends a started session', () => {
    const state = scenario(sessionDecider)
      .given([started])
      .when({ kind: 'end', reason: 'logout' })
      .thenEmits([ended]);
    assert.equal(state.status, 'ended');
  });

  test('SPEC 5.6: a second logout is a no-op (safe retry)', () => {
    scenario(sessionDecider).given([started, ended]).when({ kind: 'end', reason: 'logout' }).thenEmits([]);
  });

  test('SPEC 5.6: ending a session that never started is not_found', () => {
    scenario(sessionDecider).given([]).when({ kind: 'end', reason: 'logout' }).thenFails('not_found');
  });

  test('SPEC 5.6: a session id starts once', () => {
    scenario(sessionDecider).given([started]).when(start, { now }).thenFails('conflict');
    scenario(sessionDecider).given([started, ended]).when(start, { now }).thenFails('conflict');
  });

  test('SPEC 5.6: property: every decision follows sessionTransitions; ended is final', () => {
    const command: fc.Arbitrary<SessionCommand> = fc.oneof(
      fc.constant(start),
      fc.constant({ kind: 'end' as const, reason: 'logout' as const }),
    );
    fc.assert(
      fc.property(
        fc.array(command, { maxLength: 20 }),
        fc.date({ min: new Date('2020-01-01'), max: new Date('2040-01-01'), noInvalidDate: true }),
        (commands, at) => {
          const history: SessionEvent[] = [];
          for (const c of commands) {
            history.push(...stepByTable(sessionDecider, SESSION_TABLE, history, c, { now: at }));
          }
          // Independent of the table: at most one start, first; at most one end, after it.
          const types = history.map((e) => e.type);
          assert.ok(types.length <= 2);
          if (types.length > 0) assert.equal(types[0], 'Session.Started');
          if (types.length > 1) assert.equal(types[1], 'Session.Ended');
          const first = history[0];
          if (first?.type === 'Session.Started') {
            assert.equal(Date.parse(first.data.expires_at) - at.getTime(), SESSION_TTL_MS);
          }
        },
      ),
    );
  });
});

describe('the state table against its SPEC transcription', () => {
  test('sessionTransitions is the transcription, cell for cell', () => {
    assert.deepEqual(sessionTransitions, SESSION_TABLE);
  });
});
