import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/event-registry.ts';
import { type Decider, DomainError } from './decider.ts';
import type { TransitionTable } from './transition-table.ts';

/**
 * Panel sessions (SPEC 5.6, 8): 8 hours, stored hashed, ended by logout. Revocations caused by other
 * aggregates (password change, user or tenant suspension) live in the sessions read model, not here.
 */
export const SESSION_TTL_MS = 8 * 60 * 60 * 1000;

export const sessionStream = (sessionId: string) => `session-${sessionId}`;

const sessionStartedSchema = z.object({
  session_id: z.string().min(1),
  user_id: z.string().min(1),
  /** Only the digest: the token itself never enters the log. */
  token_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  expires_at: z.iso.datetime(),
});
export type SessionStartedData = z.infer<typeof sessionStartedSchema>;
export type SessionEndedData = { session_id: string; reason: 'logout' };

export type SessionEvent = EventOf<(typeof sessionEvents)[number]>;

export const sessionEvents = [
  defineEvent({
    type: 'Session.Started',
    audit: { action: 'session.created', when: 'a panel login' },
    schema: sessionStartedSchema,
  }),
  defineEvent({
    type: 'Session.Ended',
    audit: {
      action: 'session.revoked',
      when: 'a session was revoked by logout (SPEC 5.6); password changes and suspensions revoke through `user.*` and `tenant.*`',
    },
    schema: z.object({ session_id: z.string().min(1), reason: z.literal('logout') }),
  }),
];

export type SessionStatus = 'started' | 'ended';

export type SessionState =
  | { readonly status: 'none' }
  | { readonly status: SessionStatus; readonly session: SessionStartedData };

export type SessionCommand =
  | { kind: 'start'; session_id: string; user_id: string; token_sha256: string }
  | { kind: 'end'; reason: 'logout' };

/**
 * State table (SPEC 5.6: started -> ended, once; a repeated logout is a no-op).
 *
 *   state   | start                              | end
 *   --------+------------------------------------+-----------------------------
 *   none    | Session.Started -> started (*)     | 404 not_found
 *   started | 409 conflict                       | Session.Ended -> ended
 *   ended   | 409 conflict                       | no-op
 *
 * (*) expires_at = ctx.now + 8 hours (SPEC 8).
 */
export const sessionTransitions: TransitionTable<
  SessionStatus,
  SessionCommand['kind'],
  SessionEvent['type']
> = {
  none: { start: { emits: 'Session.Started', to: 'started' }, end: { refuse: 'not_found' } },
  started: { start: { refuse: 'conflict' }, end: { emits: 'Session.Ended', to: 'ended' } },
  ended: { start: { refuse: 'conflict' }, end: { noop: true } },
};

export const sessionDecider: Decider<SessionCommand, SessionEvent, SessionState> = {
  initialState: { status: 'none' },

  evolve(state, event) {
    switch (event.type) {
      case 'Session.Started':
        return { status: 'started', session: event.data };
      case 'Session.Ended':
        return state.status === 'none' ? state : { ...state, status: 'ended' };
    }
  },

  decide(command, state, ctx) {
    const move = sessionTransitions[state.status][command.kind];
    if ('refuse' in move) {
      return new DomainError(
        move.refuse,
        state.status === 'none' ? 'No such session.' : 'The session already exists.',
      );
    }
    if ('noop' in move) return [];
    if ('repeat' in move) return new DomainError('conflict', 'The session already exists.');
    if (command.kind === 'start') {
      const { session_id, user_id, token_sha256 } = command;
      const expires_at = new Date(ctx.now.getTime() + SESSION_TTL_MS).toISOString();
      return [{ type: 'Session.Started', data: { session_id, user_id, token_sha256, expires_at } }];
    }
    // Only a started session reaches here (the table refuses `end` in `none`).
    if (state.status === 'none') throw new Error('session state table: end from none');
    return [
      { type: 'Session.Ended', data: { session_id: state.session.session_id, reason: command.reason } },
    ];
  },
};
