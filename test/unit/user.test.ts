import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { fold } from '../../src/aggregates/decider.ts';
import {
  normalizeEmail,
  type UserCommand,
  type UserCreatedData,
  type UserEvent,
  userDecider,
  userEmailDecider,
  userEmailStream,
  userTransitions,
} from '../../src/aggregates/user.ts';
import { scenario } from '../support/given-when-then.ts';
import { stepByTable, transcribedTable } from '../support/state-table.ts';

const alice: UserCreatedData = {
  user_id: 'usr_alice',
  email: 'alice@example.com',
  role: 'tenant_admin',
  tenant_id: 'ten_a',
  password_hash: '$2b$04$first',
};
const created: UserEvent = { type: 'User.Created', data: alice };
const suspended: UserEvent = { type: 'User.Suspended', data: { user_id: 'usr_alice' } };

/**
 * SPEC 5.6/5.7's user table, transcribed here (issue 24 item 7): the oracle of the property
 * below, never `userTransitions`, so a wrong cell in the code fails.
 */
const USER_TABLE = transcribedTable(
  [
    `
    # SPEC 5.6 rule 6 and 5.7: sessions are "invalidated when the password changes or the user is
    # suspended"; a suspended user changes no password until reactivated; suspend and reactivate are
    # idempotent; a repeated creation replays.
    state     | create         | change_password        | refuse_password_change       | suspend             | reactivate
    none      | Created>active | not_found              | not_found                    | not_found           | not_found
    active    | replay         | PasswordChanged>active | PasswordChangeRefused>active | Suspended>suspended | =
    suspended | replay         | conflict               | conflict                     | =                   | Reactivated>active
    `,
  ],
  'User.',
);

describe('user decider: the SPEC 5.6/5.7 user state table', () => {
  test('SPEC 5.7: create from nothing emits User.Created', () => {
    const state = scenario(userDecider).given([]).when({ kind: 'create', user: alice }).thenEmits([created]);
    assert.deepEqual(state, { status: 'active', created: alice, passwordHash: alice.password_hash });
  });

  test('SPEC 5.7: a super_admin may have no tenant; any other role needs one', () => {
    const root = { ...alice, role: 'super_admin' as const, tenant_id: null };
    scenario(userDecider)
      .given([])
      .when({ kind: 'create', user: root })
      .thenEmits([{ type: 'User.Created', data: root }]);
    scenario(userDecider)
      .given([])
      .when({ kind: 'create', user: { ...alice, role: 'viewer', tenant_id: null } })
      .thenFails('validation_error');
  });

  test('SPEC 5.7: creating an existing user again is a no-op with the same facts, else a conflict', () => {
    const other = { ...alice, password_hash: '$2b$04$other' };
    for (const history of [[created], [created, suspended]]) {
      scenario(userDecider).given(history).when({ kind: 'create', user: alice }).thenEmits([]);
      scenario(userDecider).given(history).when({ kind: 'create', user: other }).thenFails('conflict');
    }
  });

  test('SPEC 5.6: nothing but create applies to a user that does not exist', () => {
    for (const command of [
      { kind: 'change_password', password_hash: 'x' },
      { kind: 'suspend' },
      { kind: 'reactivate' },
    ] satisfies UserCommand[]) {
      scenario(userDecider).given([]).when(command).thenFails('not_found');
    }
  });

  test('SPEC 5.6: an active user changes password', () => {
    const state = scenario(userDecider)
      .given([created])
      .when({ kind: 'change_password', password_hash: '$2b$04$second' })
      .thenEmits([
        { type: 'User.PasswordChanged', data: { user_id: 'usr_alice', password_hash: '$2b$04$second' } },
      ]);
    assert.equal(state.status === 'active' && state.passwordHash, '$2b$04$second');
  });

  test('SPEC 5.6: a suspended user cannot change password', () => {
    scenario(userDecider)
      .given([created, suspended])
      .when({ kind: 'change_password', password_hash: 'x' })
      .thenFails('conflict');
  });

  test('issue 23 item 2.4: a self-change verified against the current hash goes through; against an older one it is refused', () => {
    scenario(userDecider)
      .given([created])
      .when({ kind: 'change_password', password_hash: '$2b$04$second', verified_hash: alice.password_hash })
      .thenEmits([
        { type: 'User.PasswordChanged', data: { user_id: 'usr_alice', password_hash: '$2b$04$second' } },
      ]);
    // The password changed between the current-password check and the append (a concurrent change).
    const changedMeanwhile: UserEvent = {
      type: 'User.PasswordChanged',
      data: { user_id: 'usr_alice', password_hash: '$2b$04$other' },
    };
    scenario(userDecider)
      .given([created, changedMeanwhile])
      .when({ kind: 'change_password', password_hash: '$2b$04$second', verified_hash: alice.password_hash })
      .thenFails('validation_error');
  });

  test('issue 23 item 2.4: a refused self-change is recorded and changes nothing; only an active user has one', () => {
    const state = scenario(userDecider)
      .given([created])
      .when({ kind: 'refuse_password_change' })
      .thenEmits([{ type: 'User.PasswordChangeRefused', data: { user_id: 'usr_alice' } }]);
    assert.deepEqual(state, { status: 'active', created: alice, passwordHash: alice.password_hash });
    scenario(userDecider).given([]).when({ kind: 'refuse_password_change' }).thenFails('not_found');
    scenario(userDecider)
      .given([created, suspended])
      .when({ kind: 'refuse_password_change' })
      .thenFails('conflict');
  });

  test('SPEC 5.6: active -> suspended -> active', () => {
    scenario(userDecider).given([created]).when({ kind: 'suspend' }).thenEmits([suspended]);
    const state = scenario(userDecider)
      .given([created, suspended])
      .when({ kind: 'reactivate' })
      .thenEmits([{ type: 'User.Reactivated', data: { user_id: 'usr_alice' } }]);
    assert.equal(state.status, 'active');
  });

  test('SPEC 5.6: suspending a suspended user or reactivating an active one is a no-op (safe retry)', () => {
    scenario(userDecider).given([created, suspended]).when({ kind: 'suspend' }).thenEmits([]);
    scenario(userDecider).given([created]).when({ kind: 'reactivate' }).thenEmits([]);
  });

  test('SPEC 5.6: property: every decision follows userTransitions and histories stay well-formed', () => {
    const command: fc.Arbitrary<UserCommand> = fc.oneof(
      fc.record({
        kind: fc.constant('create' as const),
        user: fc.record({
          user_id: fc.constant('usr_p'),
          email: fc.constant('p@example.com'),
          role: fc.constantFrom('super_admin' as const, 'tenant_admin' as const, 'viewer' as const),
          tenant_id: fc.option(fc.constant('ten_p'), { nil: null }),
          password_hash: fc.string({ minLength: 1, maxLength: 8 }),
        }),
      }),
      fc.record({
        kind: fc.constant('change_password' as const),
        password_hash: fc.string({ minLength: 1, maxLength: 8 }),
      }),
      fc.constant({ kind: 'refuse_password_change' as const }),
      fc.constant({ kind: 'suspend' as const }),
      fc.constant({ kind: 'reactivate' as const }),
    );
    fc.assert(
      fc.property(fc.array(command, { maxLength: 40 }), (commands) => {
        const history: UserEvent[] = [];
        for (const c of commands) {
          history.push(
            ...stepByTable(
              userDecider,
              USER_TABLE,
              history,
              c,
              { now: new Date(0) },
              {
                // The only refusal left to the creation's own checks: a tenant-less non-super_admin.
                creation: 'create',
                sameFacts: (before, command) =>
                  before.status !== 'none' &&
                  command.kind === 'create' &&
                  isDeepStrictEqual(before.created, command.user),
              },
            ),
          );
        }
        // Independent of the table: one creation first, password changes only while active, and
        // suspension and reactivation strictly alternate.
        let status = 'none';
        let lastHash: string | undefined;
        for (const e of history) {
          if (e.type === 'User.Created') {
            assert.equal(status, 'none');
            lastHash = e.data.password_hash;
          } else assert.notEqual(status, 'none');
          if (e.type === 'User.PasswordChanged') {
            assert.equal(status, 'active');
            lastHash = e.data.password_hash;
          }
          if (e.type === 'User.PasswordChangeRefused') assert.equal(status, 'active');
          if (e.type === 'User.Suspended') assert.equal(status, 'active');
          if (e.type === 'User.Reactivated') assert.equal(status, 'suspended');
          status = e.type === 'User.Suspended' ? 'suspended' : 'active';
        }
        const final = fold(userDecider, history);
        assert.equal(final.status === 'none' ? undefined : final.passwordHash, lastHash);
      }),
    );
  });
});

describe('e-mail claim decider (DESIGN.md "Uniqueness uses reservation streams", SPEC 5.7)', () => {
  test('SPEC 5.7: the first claim carries the whole User.Created payload', () => {
    scenario(userEmailDecider)
      .given([])
      .when({ kind: 'claim', user: alice })
      .thenEmits([{ type: 'UserEmail.Claimed', data: alice }]);
  });

  test('SPEC 5.7: a second claim of the same e-mail is a conflict', () => {
    scenario(userEmailDecider)
      .given([{ type: 'UserEmail.Claimed', data: alice }])
      .when({ kind: 'claim', user: { ...alice, user_id: 'usr_other' } })
      .thenFails('conflict');
  });

  test('SPEC 5.7: a claim for an invalid user is refused before it reserves anything', () => {
    scenario(userEmailDecider)
      .given([])
      .when({ kind: 'claim', user: { ...alice, role: 'viewer', tenant_id: null } })
      .thenFails('validation_error');
  });

  test('SPEC 5.7: property: claim streams are keyed by the normalized e-mail only', () => {
    fc.assert(
      fc.property(fc.emailAddress(), fc.constantFrom('', ' ', '\t'), fc.boolean(), (email, pad, upper) => {
        const variant = `${pad}${upper ? email.toUpperCase() : email}${pad}`;
        assert.equal(userEmailStream(variant), userEmailStream(email));
        assert.equal(normalizeEmail(variant), email.toLowerCase());
        assert.match(userEmailStream(email), /^user_email-[0-9a-f]{64}$/);
      }),
    );
  });
});

describe('the state table against its SPEC transcription', () => {
  test('userTransitions is the transcription, cell for cell', () => {
    assert.deepEqual(userTransitions, USER_TABLE);
  });
});
