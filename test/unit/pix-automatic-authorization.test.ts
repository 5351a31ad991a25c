import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { DomainError, fold } from '../../src/aggregates/decider.ts';
import {
  type AuthorizationCommand,
  type AuthorizationCommandKind,
  type AuthorizationEvent,
  type AuthorizationReservedData,
  authorizationTransitions,
  pixAutomaticAuthorization as decider,
} from '../../src/aggregates/pix-automatic-authorization.ts';
import { PAYER_ADDRESS } from '../support/charges.ts';
import { scenario } from '../support/given-when-then.ts';
import { cellOf, stepByTable, transcribedTable } from '../support/state-table.ts';

/**
 * The Pix Automatic authorization's decider (SPEC 3.2, 4.11; docs/decisions.md "Pix Automatic (issue 27):
 * authorizations"): one given/when/then per SPEC 3.2 row, every cell of the table as transcribed here (the
 * oracle is this file's TABLE, never `authorizationTransitions`), and properties over random histories.
 */

const P = 'PixAutomaticAuthorization.';
const ID = 'pxa_a';
const CREATED_AT = '2026-03-01T12:00:00.000Z';
/** SPEC 4.11: the payer has 24 hours to approve. */
const DEADLINE = '2026-03-02T12:00:00.000Z';
const at = (iso: string) => ({ now: new Date(iso) });
const soon = at('2026-03-01T13:00:00.000Z');
const late = at(DEADLINE);

const data: AuthorizationReservedData = {
  authorization_id: ID,
  tenant_id: 'ten_a',
  livemode: true,
  simulated: false,
  environment: 'production',
  provider_id: 'prv_a',
  name: 'Academia',
  description: 'Mensalidade',
  amount: 9990,
  first_due_date: '2026-03-10',
  interval_months: 1,
  customer: {
    name: 'Maria Souza',
    document: '12345678909',
    email: 'maria@example.com',
    phone: '11999998888',
    address: PAYER_ADDRESS,
  },
  created_at: CREATED_AT,
};
const simData: AuthorizationReservedData = {
  ...data,
  livemode: false,
  simulated: true,
  environment: 'sandbox',
  provider_id: null,
};
const NO_DIAG = { provider_error_code: null, provider_error_message: null, provider_http_status: null };
const DIAG = { provider_error_code: '1001', provider_error_message: null, provider_http_status: 400 };

const reserved = (d = data): AuthorizationEvent =>
  ({ type: `${P}Reserved` as const, data: d }) as AuthorizationEvent;
const ev = (type: string, d: Record<string, unknown> = {}) =>
  ({ type: `${P}${type}`, data: { authorization_id: ID, ...d } }) as AuthorizationEvent;
const createdEv = ev('Created', { provider_reference: 'rec_1', copy_paste: '00020101rec1' });
const refusedEv = ev('Refused', { reason: 'provider_error', provider_reference: null, diagnostics: DIAG });
const uncertainEv = ev('Uncertain', { reason: 'timeout', provider_reference: null, diagnostics: NO_DIAG });
const uncertainWithRef = ev('Uncertain', {
  reason: 'incomplete',
  provider_reference: 'rec_1',
  diagnostics: NO_DIAG,
});
const approvedEv = (source: 'provider' | 'simulation', when = soon.now.toISOString()) =>
  ev('Approved', { approved_at: when, source });
const expiredEv = (source: 'deadline' | 'provider' | 'simulation') => ev('Expired', { source });
const cancelledEv = (source: 'revoke' | 'provider' | 'simulation') => ev('Cancelled', { source });
const failedEv = ev('Failed', { provider_status: 'REJEITADA' });
const revokeReservedEv = (when = soon.now.toISOString()) => ev('RevokeReserved', { reserved_at: when });

const command = (kind: AuthorizationCommandKind, d = data): AuthorizationCommand => {
  switch (kind) {
    case 'create':
      return { kind, data: d };
    case 'issued':
      return { kind, providerReference: 'rec_1', copyPaste: '00020101rec1' };
    case 'refused':
      return { kind, reason: 'provider_error', providerReference: null, diagnostics: DIAG };
    case 'uncertain':
      return { kind, reason: 'timeout', providerReference: null, diagnostics: NO_DIAG };
    case 'remote_pending':
    case 'remote_approved':
    case 'remote_expired':
    case 'remote_cancelled':
    case 'remote_failed':
      return { kind, providerStatus: kind.slice('remote_'.length).toUpperCase() };
    case 'revoke_refused':
    case 'revoke_uncertain':
      return { kind, reason: 'provider_error', diagnostics: NO_DIAG };
    default:
      return { kind } as AuthorizationCommand;
  }
};

/**
 * SPEC 3.2 transcribed (SPEC 3.1 for the finals' regressing updates, SPEC 4.7 for simulate, SPEC 7 for the
 * codes); cells SPEC leaves open are the decisions of docs/decisions.md, said in the comments.
 */
const TABLE = transcribedTable(
  [
    `
    # SPEC 3.2 (none) rows: confirmed creation -> pending, confirmed refusal -> failed, no confirmed result -> unknown,
    # after the reservation (processing: SPEC 3.1's first row, the same reserve -> call -> record).
    # A refresh of a processing one has nothing to query (reconciliation_required, SPEC 7).
    state      | create              | issued          | refused        | uncertain
    none       | Reserved>processing | not_found       | not_found      | not_found
    processing | replay              | Created>pending | Refused>failed | Uncertain>unknown
    pending    | replay              | =               | =              | =
    approved   | replay              | =               | =              | =
    unknown    | replay              | =               | =              | =
    expired    | replay              | =               | =              | =
    cancelled  | replay              | =               | =              | =
    failed     | replay              | =               | =              | =
    `,
    `
    # SPEC 3.2: pending -> approved (refresh), -> expired (refresh), -> cancelled (payer cancels in the bank app);
    # approved -> expired at the contract's end; REJEITADA -> failed (decision). Finals never reopen and a
    # regressing report is 409 provider_status_conflict (SPEC 3.1); an expired one reported cancelled is the
    # expiry's own revoke (decision). An unknown one takes what the provider confirms.
    state      | remote_pending          | remote_approved         | remote_expired          | remote_cancelled    | remote_failed
    none       | not_found               | not_found               | not_found               | not_found           | not_found
    processing | reconciliation_required | reconciliation_required | reconciliation_required | reconciliation_required | reconciliation_required
    pending    | =                       | Approved>approved       | Expired>expired         | Cancelled>cancelled | Failed>failed
    approved   | provider_status_conflict| =                       | Expired>expired         | Cancelled>cancelled | provider_status_conflict
    unknown    | Confirmed>pending       | Approved>approved       | Expired>expired         | Cancelled>cancelled | Failed>failed
    expired    | provider_status_conflict| provider_status_conflict| =                       | =                   | provider_status_conflict
    cancelled  | provider_status_conflict| provider_status_conflict| provider_status_conflict| =                   | provider_status_conflict
    failed     | provider_status_conflict| provider_status_conflict| provider_status_conflict| provider_status_conflict | =
    `,
    `
    # SPEC 3.2 simulate rows (test key; SPEC 4.7: else 409 simulation_not_allowed): approved and expired from
    # pending only, cancelled from pending or approved. expire: SPEC 3.2 "24 hours pass without approval".
    state      | simulate_approved      | simulate_cancelled     | simulate_expired       | expire
    none       | not_found              | not_found              | not_found              | not_found
    processing | simulation_not_allowed | simulation_not_allowed | simulation_not_allowed | =
    pending    | Approved>approved      | Cancelled>cancelled    | Expired>expired        | Expired>expired
    approved   | simulation_not_allowed | Cancelled>cancelled    | simulation_not_allowed | =
    unknown    | simulation_not_allowed | simulation_not_allowed | simulation_not_allowed | =
    expired    | simulation_not_allowed | simulation_not_allowed | simulation_not_allowed | =
    cancelled  | simulation_not_allowed | simulation_not_allowed | simulation_not_allowed | =
    failed     | simulation_not_allowed | simulation_not_allowed | simulation_not_allowed | =
    `,
    `
    # SPEC 3.2 revoke: pending/approved -> cancelled once the provider confirms (reserve -> call -> record);
    # a cancelled one again is idempotent; an ended one (expired, failed) is 409 automatic_not_available and an
    # unconfirmed creation 409 reconciliation_required (decisions). The expiry closes an expired one at the
    # provider (revoke_expired, decision).
    state      | revoke                  | revoke_expired         | revoke_confirmed    | revoke_refused         | revoke_uncertain
    none       | not_found               | not_found              | not_found           | not_found              | not_found
    processing | reconciliation_required | =                      | =                   | =                      | =
    pending    | RevokeReserved>pending  | =                      | Cancelled>cancelled | RevokeRefused>pending  | RevokeUncertain>pending
    approved   | RevokeReserved>approved | =                      | Cancelled>cancelled | RevokeRefused>approved | RevokeUncertain>approved
    unknown    | reconciliation_required | =                      | =                   | =                      | =
    expired    | automatic_not_available | RevokeReserved>expired | Revoked>expired     | RevokeRefused>expired  | RevokeUncertain>expired
    cancelled  | =                       | =                      | =                   | =                      | =
    failed     | automatic_not_available | =                      | =                   | =                      | =
    `,
  ],
  P,
);

const KINDS = Object.keys(TABLE.none ?? {}) as AuthorizationCommandKind[];

/** A history leaving the authorization in each state (non-simulated, with a provider reference). */
const HISTORY: Record<string, AuthorizationEvent[]> = {
  none: [],
  processing: [reserved()],
  pending: [reserved(), createdEv],
  approved: [reserved(), createdEv, approvedEv('provider')],
  unknown: [reserved(), uncertainWithRef],
  expired: [reserved(), createdEv, expiredEv('deadline')],
  cancelled: [reserved(), createdEv, cancelledEv('provider')],
  failed: [reserved(), refusedEv],
};

/** The history and clock under which a cell's rule lets its move happen (the rules beside the table). */
function setting(state: string, kind: AuthorizationCommandKind) {
  let history = HISTORY[state] ?? [];
  if (kind.startsWith('simulate_') && history.length > 0) {
    history = [reserved(simData), ...history.slice(1)];
  }
  if (kind === 'revoke_confirmed' || kind === 'revoke_refused' || kind === 'revoke_uncertain') {
    if (state !== 'none') history = [...history, revokeReservedEv()];
  }
  return { history, ctx: kind === 'expire' ? late : soon };
}

describe('Pix Automatic authorization: every cell of the table (SPEC 3.2)', () => {
  test('the table in the code is the transcription, cell by cell', () => {
    for (const state of Object.keys(HISTORY)) {
      for (const kind of KINDS) {
        assert.deepEqual(
          (authorizationTransitions as Record<string, Record<string, unknown>>)[state]?.[kind],
          cellOf(TABLE, state, kind),
          `${state} x ${kind}`,
        );
      }
    }
  });

  for (const state of Object.keys(HISTORY)) {
    for (const kind of KINDS) {
      test(`${state} x ${kind}: ${JSON.stringify(cellOf(TABLE, state, kind))}`, () => {
        const { history, ctx } = setting(state, kind);
        stepByTable(decider, TABLE, history, command(kind), ctx, {
          creation: 'create',
          sameFacts: (_s, c) => c.kind === 'create' && JSON.stringify(c.data) === JSON.stringify(data),
        });
      });
    }
  }
});

describe('Pix Automatic authorization: SPEC 3.2 rows', () => {
  test('(none) create -> processing (the reservation), then confirmed creation -> pending with copy_paste', () => {
    const processing = scenario(decider).given([]).when(command('create')).thenEmits([reserved()]);
    assert.equal(processing.status, 'processing');
    const pending = scenario(decider).given([reserved()]).when(command('issued')).thenEmits([createdEv]);
    assert.ok(pending.status === 'pending');
    assert.equal(pending.copy_paste, '00020101rec1');
    assert.equal(pending.provider_reference, 'rec_1');
    assert.equal(pending.approval_deadline, DEADLINE);
    assert.equal(pending.approved_at, null);
    assert.equal(pending.revoke_in_flight, false);
  });

  test('confirmed refusal -> failed with its diagnostics; no confirmed result -> unknown', () => {
    const failed = scenario(decider).given([reserved()]).when(command('refused')).thenEmits([refusedEv]);
    assert.ok(failed.status === 'failed');
    assert.deepEqual(failed.diagnostics, DIAG);
    const unknown = scenario(decider).given([reserved()]).when(command('uncertain')).thenEmits([uncertainEv]);
    assert.ok(unknown.status === 'unknown');
    assert.equal(unknown.copy_paste, null);
  });

  test('a repeated creation with the same facts is a no-op, with other facts 409 conflict', () => {
    scenario(decider).given([reserved(), createdEv]).when(command('create')).thenEmits([]);
    scenario(decider)
      .given([reserved(), createdEv])
      .when(command('create', { ...data, amount: 1 }))
      .thenFails('conflict');
  });

  test('invalid facts are 422 validation_error (interval_months 1, 3, 6 or 12; amount 1..100000000)', () => {
    for (const bad of [
      { ...data, interval_months: 2 },
      { ...data, amount: 0 },
      { ...data, amount: 100_000_001 },
      { ...data, authorization_id: 'sub_a' },
    ]) {
      scenario(decider)
        .given([])
        .when(command('create', bad as AuthorizationReservedData))
        .thenFails('validation_error');
    }
  });

  test('pending -> approved by refresh (approved_at recorded) or by simulate on a simulated one', () => {
    const s = scenario(decider)
      .given([reserved(), createdEv])
      .when(command('remote_approved'), soon)
      .thenEmits([approvedEv('provider')]);
    assert.ok(s.status === 'approved');
    assert.equal(s.approved_at, soon.now.toISOString());
    scenario(decider)
      .given([reserved(simData), createdEv])
      .when(command('simulate_approved'), soon)
      .thenEmits([approvedEv('simulation')]);
  });

  test('REJEITADA (remote failed) on a pending one -> failed, final (decision: SPEC 3.2 has no rejected)', () => {
    const s = scenario(decider)
      .given([reserved(), createdEv])
      .when({ kind: 'remote_failed', providerStatus: 'REJEITADA' })
      .thenEmits([failedEv]);
    assert.equal(s.status, 'failed');
    scenario(decider)
      .given([reserved(), createdEv, failedEv])
      .when(command('remote_approved'))
      .thenFails('provider_status_conflict');
  });

  test('simulate on a non-simulated authorization is 409 simulation_not_allowed (SPEC 4.7)', () => {
    for (const kind of ['simulate_approved', 'simulate_cancelled', 'simulate_expired'] as const) {
      scenario(decider)
        .given([reserved(), createdEv])
        .when(command(kind))
        .thenFails('simulation_not_allowed');
    }
  });

  test('pending -> expired only once 24 hours have passed (before: nothing)', () => {
    scenario(decider).given([reserved(), createdEv]).when(command('expire'), soon).thenEmits([]);
    scenario(decider)
      .given([reserved(), createdEv])
      .when(command('expire'), at('2026-03-02T11:59:59.999Z'))
      .thenEmits([]);
    const s = scenario(decider)
      .given([reserved(), createdEv])
      .when(command('expire'), late)
      .thenEmits([expiredEv('deadline')]);
    assert.equal(s.status, 'expired');
  });

  test('revoke: reserve, then the confirmation -> cancelled; a revoke in flight refuses a second one', () => {
    const inFlight = scenario(decider)
      .given([reserved(), createdEv])
      .when(command('revoke'), soon)
      .thenEmits([revokeReservedEv()]);
    assert.ok(inFlight.status === 'pending' && inFlight.revoke_in_flight);
    scenario(decider)
      .given([reserved(), createdEv, revokeReservedEv()])
      .when(command('revoke'), at('2026-03-01T13:01:59.000Z'))
      .thenFails('provider_cancel_unconfirmed');
    const done = scenario(decider)
      .given([reserved(), createdEv, revokeReservedEv()])
      .when(command('revoke_confirmed'))
      .thenEmits([cancelledEv('revoke')]);
    assert.ok(done.status === 'cancelled' && !done.revoke_in_flight);
  });

  test('an interrupted revoke (no answer for 2 minutes) lets a new one be reserved', () => {
    scenario(decider)
      .given([reserved(), createdEv, revokeReservedEv()])
      .when(command('revoke'), at('2026-03-01T13:02:00.000Z'))
      .thenEmits([revokeReservedEv('2026-03-01T13:02:00.000Z')]);
  });

  test('a refused or uncertain revoke leaves the status and ends the flight (a later DELETE may retry)', () => {
    for (const kind of ['revoke_refused', 'revoke_uncertain'] as const) {
      const s = scenario(decider)
        .given([reserved(), createdEv, approvedEv('provider'), revokeReservedEv()])
        .when(command(kind))
        .thenEmits([
          ev(kind === 'revoke_refused' ? 'RevokeRefused' : 'RevokeUncertain', {
            reason: 'provider_error',
            diagnostics: NO_DIAG,
          }),
        ]);
      assert.ok(s.status === 'approved' && !s.revoke_in_flight);
      scenario(decider)
        .given([reserved(), createdEv, approvedEv('provider')])
        .when(command(kind))
        .thenEmits([]);
    }
  });

  test('the expiry closes an expired, non-simulated one at the provider once; a simulated one needs nothing', () => {
    const expired = [reserved(), createdEv, expiredEv('deadline')];
    const reservedClose = scenario(decider)
      .given(expired)
      .when(command('revoke_expired'), soon)
      .thenEmits([revokeReservedEv()]);
    assert.ok(reservedClose.status === 'expired' && reservedClose.revoke_in_flight);
    scenario(decider)
      .given([...expired, revokeReservedEv()])
      .when(command('revoke_expired'), soon)
      .thenEmits([]);
    const closed = scenario(decider)
      .given([...expired, revokeReservedEv()])
      .when(command('revoke_confirmed'))
      .thenEmits([ev('Revoked')]);
    assert.ok(closed.status === 'expired' && closed.provider_closed);
    scenario(decider)
      .given([...expired, revokeReservedEv(), ev('Revoked')])
      .when(command('revoke_expired'))
      .thenEmits([]);
    scenario(decider)
      .given([reserved(simData), createdEv, expiredEv('deadline')])
      .when(command('revoke_expired'))
      .thenEmits([]);
    // An uncertain close is tried again; a refused one is not (the provider will not do it).
    scenario(decider)
      .given([
        ...expired,
        revokeReservedEv(),
        ev('RevokeUncertain', { reason: 'timeout', diagnostics: NO_DIAG }),
      ])
      .when(command('revoke_expired'), soon)
      .thenEmits([revokeReservedEv()]);
    scenario(decider)
      .given([
        ...expired,
        revokeReservedEv(),
        ev('RevokeRefused', { reason: 'provider_error', diagnostics: NO_DIAG }),
      ])
      .when(command('revoke_expired'))
      .thenEmits([]);
  });
});

const anyKind = fc.constantFrom(...KINDS);
const clock = fc.constantFrom(soon, late, at('2026-03-01T13:01:00.000Z'), at('2026-03-05T00:00:00.000Z'));
const FINALS = ['expired', 'cancelled', 'failed'];

describe('Pix Automatic authorization: properties (SPEC 3.2)', () => {
  test("every decision is its cell (or a cell rule's no-op); finals never move; approved only from pending or unknown", () => {
    fc.assert(
      fc.property(fc.boolean(), fc.array(fc.tuple(anyKind, clock), { maxLength: 40 }), (simulated, steps) => {
        const d = simulated ? simData : data;
        const history: AuthorizationEvent[] = [];
        for (const [kind, ctx] of steps) {
          const before = fold(decider, history);
          const move = cellOf(TABLE, before.status, kind);
          const decision = decider.decide(command(kind, d), before, ctx);
          if ('refuse' in move) {
            assert.ok(
              decision instanceof DomainError && decision.code === move.refuse,
              `${before.status} ${kind}`,
            );
          } else if ('noop' in move || 'repeat' in move) {
            assert.deepEqual(decision, []);
          } else if (decision instanceof DomainError) {
            // The cell rules that refuse: simulating a non-simulated one, a second revoke in flight.
            assert.ok(
              (kind.startsWith('simulate_') && !simulated && decision.code === 'simulation_not_allowed') ||
                (kind === 'revoke' && decision.code === 'provider_cancel_unconfirmed'),
              `${before.status} ${kind} ${decision.code}`,
            );
          } else if (decision.length > 0) {
            assert.deepEqual(
              decision.map((e) => e.type),
              [move.emits],
            );
            assert.equal(fold(decider, [...history, ...decision]).status, move.to);
          }
          if (Array.isArray(decision)) history.push(...decision);
          const after = fold(decider, history);
          if (FINALS.includes(before.status)) assert.equal(after.status, before.status);
          if (after.status === 'approved' && before.status !== 'approved') {
            assert.ok(['pending', 'unknown'].includes(before.status), before.status);
          }
          if (before.status !== 'none' && after.status !== 'none') {
            assert.equal(after.id, before.id);
            assert.equal(after.amount, before.amount);
            assert.equal(after.simulated, before.simulated);
            assert.equal(after.approval_deadline, before.approval_deadline);
          }
        }
      }),
    );
  });

  test('a simulated authorization is never moved by a provider close (nothing to revoke there)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(anyKind, clock), { maxLength: 30 }), (steps) => {
        const history: AuthorizationEvent[] = [];
        for (const [kind, ctx] of steps) {
          const before = fold(decider, history);
          const decision = decider.decide(command(kind, simData), before, ctx);
          if (Array.isArray(decision)) history.push(...decision);
          if (kind === 'revoke_expired' && before.status !== 'none') assert.deepEqual(decision, []);
        }
      }),
    );
  });
});
