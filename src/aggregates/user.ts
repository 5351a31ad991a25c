import { z } from 'zod';
import { sha256Hex } from '../crypto/secrets.ts';
import { defineEvent } from '../events/event-registry.ts';
import { type Decider, DomainError, type DomainEvent } from './decider.ts';
import type { TransitionTable } from './transition-table.ts';

/**
 * Panel users (SPEC 2.7 roles, 5.6 sessions, 5.7 capabilities). Passwords arrive already hashed (bcrypt
 * runs in the command layer), ids arrive in the command: the decider stays pure.
 */
export const USER_ROLES = ['super_admin', 'tenant_admin', 'viewer'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** The one spelling of an e-mail the gateway stores, compares and hashes into the claim stream. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export const userStream = (userId: string) => `user-${userId}`;
/** Reservation stream (DESIGN.md "Uniqueness uses reservation streams"): one per normalized e-mail. */
export const userEmailStream = (email: string) => `user_email-${sha256Hex(normalizeEmail(email))}`;

const userCreatedSchema = z.object({
  user_id: z.string().min(1),
  email: z.string().min(3).max(254),
  role: z.enum(USER_ROLES),
  /** null only for a super_admin not bound to a tenant (the bootstrap administrator). */
  tenant_id: z.string().min(1).nullable(),
  password_hash: z.string().min(1),
});
export type UserCreatedData = z.infer<typeof userCreatedSchema>;

export type UserEvent =
  | DomainEvent<'User.Created', UserCreatedData>
  | DomainEvent<'User.PasswordChanged', { user_id: string; password_hash: string }>
  | DomainEvent<'User.PasswordChangeRefused', { user_id: string }>
  | DomainEvent<'User.Suspended', { user_id: string }>
  | DomainEvent<'User.Reactivated', { user_id: string }>;

/** Carries the whole User.Created payload, so a replay completes a claim left without its user. */
export type UserEmailEvent = DomainEvent<'UserEmail.Claimed', UserCreatedData>;

const userIdOnly = z.object({ user_id: z.string().min(1) });

export const userEvents = [
  defineEvent({
    type: 'User.Created',
    audit: { action: 'user.created', when: 'a panel user was created' },
    schema: userCreatedSchema,
  }),
  defineEvent({
    type: 'User.PasswordChanged',
    audit: { action: 'user.password_changed', when: "a user's password changed" },
    schema: z.object({ user_id: z.string().min(1), password_hash: z.string().min(1) }),
  }),
  // Issue 23 item 2.4: a self-change whose current password did not match, kept for the audit log.
  defineEvent({
    type: 'User.PasswordChangeRefused',
    audit: {
      action: 'user.password_change_refused',
      when: "a user's change of their own password was refused: the current password did not match (issue 23 item 2.4)",
    },
    schema: userIdOnly,
  }),
  defineEvent({
    type: 'User.Suspended',
    audit: { action: 'user.suspended', when: 'a user was suspended' },
    schema: userIdOnly,
  }),
  defineEvent({
    type: 'User.Reactivated',
    audit: { action: 'user.reactivated', when: 'a user was reactivated' },
    schema: userIdOnly,
  }),
  defineEvent({ type: 'UserEmail.Claimed', schema: userCreatedSchema }),
];

export type UserStatus = 'active' | 'suspended';

export type UserState =
  | { readonly status: 'none' }
  | {
      readonly status: UserStatus;
      /** The facts of User.Created, kept as created so a repeated creation can be recognized. */
      readonly created: UserCreatedData;
      readonly passwordHash: string;
    };

export type UserCommand =
  | { kind: 'create'; user: UserCreatedData }
  | {
      kind: 'change_password';
      password_hash: string;
      /**
       * Issue 23 item 2.4: on a self-change, the hash the caller's current password was verified against
       * (bcrypt runs in the command layer); refused if the password changed since.
       */
      verified_hash?: string;
    }
  /** A self-change whose current password did not match: recorded, nothing else changes. */
  | { kind: 'refuse_password_change' }
  | { kind: 'suspend' }
  | { kind: 'reactivate' };

/**
 * State table (SPEC 5.6: active <-> suspended; the password changes only while active; repeating a move is
 * a no-op, so a retry appends nothing).
 *
 *   state     | create                      | change_password                    | refuse_password_change                | suspend                    | reactivate
 *   ----------+-----------------------------+------------------------------------+---------------------------------------+----------------------------+---------------------------
 *   none      | User.Created -> active (*)  | 404 not_found                      | 404 not_found                         | 404 not_found              | 404 not_found
 *   active    | same facts: no-op; else 409 | User.PasswordChanged -> active (†) | User.PasswordChangeRefused -> active  | User.Suspended -> suspended| no-op
 *   suspended | same facts: no-op; else 409 | 409 conflict                       | 409 conflict                          | no-op                      | User.Reactivated -> active
 *
 * (*) refused with 422 validation_error when a role other than super_admin has no tenant (SPEC 5.7).
 * (†) with `verified_hash`, refused with 422 validation_error (param current_password) when the password
 *     is no longer the one the current password was verified against (a concurrent change).
 */
export const userTransitions: TransitionTable<UserStatus, UserCommand['kind'], UserEvent['type']> = {
  none: {
    create: { emits: 'User.Created', to: 'active' },
    change_password: { refuse: 'not_found' },
    refuse_password_change: { refuse: 'not_found' },
    suspend: { refuse: 'not_found' },
    reactivate: { refuse: 'not_found' },
  },
  active: {
    create: { repeat: 'same_facts_or_conflict' },
    change_password: { emits: 'User.PasswordChanged', to: 'active' },
    refuse_password_change: { emits: 'User.PasswordChangeRefused', to: 'active' },
    suspend: { emits: 'User.Suspended', to: 'suspended' },
    reactivate: { noop: true },
  },
  suspended: {
    create: { repeat: 'same_facts_or_conflict' },
    change_password: { refuse: 'conflict' },
    refuse_password_change: { refuse: 'conflict' },
    suspend: { noop: true },
    reactivate: { emits: 'User.Reactivated', to: 'active' },
  },
};

const REFUSALS: Partial<Record<UserCommand['kind'], string>> = {
  change_password: 'A suspended user cannot change password.',
  refuse_password_change: 'A suspended user cannot change password.',
};

/** SPEC 5.7: every role but super_admin belongs to a tenant. */
export function invalidNewUser(user: UserCreatedData): DomainError | undefined {
  if (user.tenant_id === null && user.role !== 'super_admin') {
    return new DomainError('validation_error', 'Only a super_admin may have no tenant.', {
      param: 'tenant_id',
    });
  }
  return undefined;
}

function sameFacts(a: UserCreatedData, b: UserCreatedData): boolean {
  return (
    a.user_id === b.user_id &&
    a.email === b.email &&
    a.role === b.role &&
    a.tenant_id === b.tenant_id &&
    a.password_hash === b.password_hash
  );
}

export const userDecider: Decider<UserCommand, UserEvent, UserState> = {
  initialState: { status: 'none' },

  evolve(state, event) {
    if (event.type === 'User.Created') {
      return { status: 'active', created: event.data, passwordHash: event.data.password_hash };
    }
    // Later events never arrive on an empty stream; ignoring them keeps evolve total.
    if (state.status === 'none') return state;
    switch (event.type) {
      case 'User.PasswordChanged':
        return { ...state, passwordHash: event.data.password_hash };
      case 'User.PasswordChangeRefused':
        return state;
      case 'User.Suspended':
        return { ...state, status: 'suspended' };
      case 'User.Reactivated':
        return { ...state, status: 'active' };
    }
  },

  decide(command, state) {
    const move = userTransitions[state.status][command.kind];
    if ('refuse' in move) {
      const message = state.status === 'none' ? 'No such user.' : REFUSALS[command.kind];
      return new DomainError(move.refuse, message ?? 'Refused.');
    }
    if ('noop' in move) return [];
    if ('repeat' in move) {
      const same =
        state.status !== 'none' && command.kind === 'create' && sameFacts(state.created, command.user);
      return same ? [] : new DomainError('conflict', 'The user already exists.');
    }
    if (command.kind === 'create') {
      return invalidNewUser(command.user) ?? [{ type: 'User.Created', data: command.user }];
    }
    // Only an existing user reaches here (the table refuses the other commands in `none`).
    if (state.status === 'none' || move.emits === 'User.Created') {
      throw new Error(`user state table: ${command.kind} cannot emit ${move.emits} from ${state.status}`);
    }
    const user_id = state.created.user_id;
    switch (command.kind) {
      case 'change_password':
        if (command.verified_hash !== undefined && command.verified_hash !== state.passwordHash) {
          return new DomainError(
            'validation_error',
            'Your password changed while this request ran; send the new one as current_password.',
            { param: 'current_password' },
          );
        }
        return [{ type: 'User.PasswordChanged', data: { user_id, password_hash: command.password_hash } }];
      case 'refuse_password_change':
        return [{ type: 'User.PasswordChangeRefused', data: { user_id } }];
      case 'suspend':
        return [{ type: 'User.Suspended', data: { user_id } }];
      case 'reactivate':
        return [{ type: 'User.Reactivated', data: { user_id } }];
    }
  },
};

export type EmailClaimState = { readonly claimed: false } | { readonly claimed: true; user: UserCreatedData };
export type EmailClaimCommand = { kind: 'claim'; user: UserCreatedData };

/** The e-mail reservation: unclaimed -> claimed, once. A second claim is a uniqueness conflict. */
export const userEmailDecider: Decider<EmailClaimCommand, UserEmailEvent, EmailClaimState> = {
  initialState: { claimed: false },
  evolve: (_state, event) => ({ claimed: true, user: event.data }),
  decide(command, state) {
    if (state.claimed) return new DomainError('conflict', 'This e-mail is already in use.');
    return invalidNewUser(command.user) ?? [{ type: 'UserEmail.Claimed', data: command.user }];
  },
};
