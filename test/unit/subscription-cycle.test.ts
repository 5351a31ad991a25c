import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { DomainError, fold } from '../../src/aggregates/decider.ts';
import {
  ATTENTION_CODES,
  type AttentionCode,
  type CycleCommand,
  type CycleEvent,
  type CycleIdentity,
  type CycleState,
  cycleStream,
  cycleTransitions,
  SKIP_CODES,
  type SkipCode,
  subscriptionCycle,
} from '../../src/aggregates/subscription-cycle.ts';
import { scenario } from '../support/given-when-then.ts';

/**
 * A subscription's cycle (SPEC 2.5, 3.4; docs/decisions.md "Subscriptions (issue 26)"): one given/when/then
 * per cell of its table and a property over random command sequences. The oracle is this file's TABLE,
 * transcribed from SPEC 3.4 and 2.5, never `cycleTransitions`.
 */

const identity: CycleIdentity = {
  cycle_id: 'scy_a',
  subscription_id: 'sub_a',
  tenant_id: 'ten_a',
  livemode: false,
  method: 'boleto',
  cycle: 3,
  due_date: '2026-03-31',
};
const reserved: CycleEvent = { type: 'Cycle.Reserved', data: identity };
const issued = (transaction_id: string | null = 'txn_1', checkout_id: string | null = null): CycleEvent => ({
  type: 'Cycle.Issued',
  data: { cycle_id: 'scy_a', transaction_id, checkout_id },
});
const attention = (error_code: AttentionCode, transaction_id: string | null = 'txn_1'): CycleEvent => ({
  type: 'Cycle.AttentionNeeded',
  data: { cycle_id: 'scy_a', transaction_id, error_code },
});
const skipped = (error_code: SkipCode): CycleEvent => ({
  type: 'Cycle.Skipped',
  data: { ...identity, error_code },
});

const reserve: CycleCommand = { kind: 'reserve', identity };
const issue = (transactionId: string | null = 'txn_1', checkoutId: string | null = null): CycleCommand => ({
  kind: 'issue',
  transactionId,
  checkoutId,
});
const attend = (errorCode: AttentionCode, transactionId: string | null = 'txn_1'): CycleCommand => ({
  kind: 'attention',
  transactionId,
  errorCode,
});
const skip = (errorCode: SkipCode): CycleCommand => ({ kind: 'skip', identity, errorCode });

const HISTORY = {
  none: [] as CycleEvent[],
  pending: [reserved],
  created: [reserved, issued()],
  attention: [reserved, attention('provider_rejected')],
  skipped: [skipped('cycle_overdue')],
};
type Row = keyof typeof HISTORY;
type Kind = CycleCommand['kind'];
type Expect = { refuse: string } | { noop: true } | { emits: string; to: string };

/**
 * SPEC 3.4 and 2.5, transcribed. A cycle is reserved once (`pending`: emission in progress); its charge or
 * link makes it `created`; a reserved charge refused or unconfirmed makes it `attention` (never resent in the
 * cycle); a cycle that can no longer be issued, reserved or not, is `skipped`. The three last are final:
 * whatever comes later (a second worker, a crash's replay) changes nothing. Issuing or flagging a cycle never
 * reserved is 404.
 */
const FINAL: Record<Kind, Expect> = {
  reserve: { noop: true },
  issue: { noop: true },
  attention: { noop: true },
  skip: { noop: true },
};
const TABLE: Record<Row, Record<Kind, Expect>> = {
  none: {
    reserve: { emits: 'Cycle.Reserved', to: 'pending' },
    issue: { refuse: 'not_found' },
    attention: { refuse: 'not_found' },
    skip: { emits: 'Cycle.Skipped', to: 'skipped' },
  },
  pending: {
    reserve: { noop: true },
    issue: { emits: 'Cycle.Issued', to: 'created' },
    attention: { emits: 'Cycle.AttentionNeeded', to: 'attention' },
    skip: { emits: 'Cycle.Skipped', to: 'skipped' },
  },
  created: FINAL,
  attention: FINAL,
  skipped: FINAL,
};

describe('cycle table, one cell at a time (given/when/then; SPEC 3.4, 2.5)', () => {
  const s = scenario(subscriptionCycle);

  test('none x reserve: Reserved -> pending, no charge yet', () => {
    const state = s.given(HISTORY.none).when(reserve).thenEmits([reserved]);
    assert.ok(state.status === 'pending' && state.transactionId === null && state.errorCode === null);
  });
  test('none x issue: 404 not_found (nothing reserved)', () => {
    s.given(HISTORY.none).when(issue()).thenFails('not_found');
  });
  test('none x attention: 404 not_found (nothing reserved)', () => {
    s.given(HISTORY.none).when(attend('payment_unknown')).thenFails('not_found');
  });
  for (const code of SKIP_CODES) {
    test(`none x skip (${code}): Skipped -> skipped, with its error_code (a cycle that fell due while paused)`, () => {
      const state = s
        .given(HISTORY.none)
        .when(skip(code))
        .thenEmits([skipped(code)]);
      assert.ok(state.status === 'skipped' && state.errorCode === code && state.transactionId === null);
    });
  }

  test('pending x reserve: no-op (a second worker finds the reservation)', () => {
    s.given(HISTORY.pending).when(reserve).thenEmits([]);
  });
  test('pending x issue: Issued -> created, with its transaction', () => {
    const state = s
      .given(HISTORY.pending)
      .when(issue('txn_1'))
      .thenEmits([issued('txn_1')]);
    assert.ok(state.status === 'created' && state.transactionId === 'txn_1' && state.checkoutId === null);
  });
  test('pending x issue of a Pix link: Issued -> created, its checkout and no transaction yet (SPEC 2.5)', () => {
    const state = s
      .given(HISTORY.pending)
      .when(issue(null, 'chk_1'))
      .thenEmits([issued(null, 'chk_1')]);
    assert.ok(state.status === 'created' && state.transactionId === null && state.checkoutId === 'chk_1');
  });
  for (const code of ATTENTION_CODES) {
    test(`pending x attention (${code}): AttentionNeeded -> attention`, () => {
      const state = s
        .given(HISTORY.pending)
        .when(attend(code))
        .thenEmits([attention(code)]);
      assert.ok(state.status === 'attention' && state.errorCode === code && state.transactionId === 'txn_1');
    });
  }
  test('pending x skip: Skipped -> skipped (reserved but can no longer be issued)', () => {
    const state = s
      .given(HISTORY.pending)
      .when(skip('cycle_overdue'))
      .thenEmits([skipped('cycle_overdue')]);
    assert.equal(state.status, 'skipped');
  });

  for (const row of ['created', 'attention', 'skipped'] as const) {
    for (const cmd of [
      reserve,
      issue('txn_2'),
      attend('payment_unknown', 'txn_2'),
      skip('automatic_charge_exists'),
    ]) {
      test(`${row} x ${cmd.kind}: no-op (final; never resent in the cycle)`, () => {
        s.given(HISTORY[row]).when(cmd).thenEmits([]);
      });
    }
  }

  test('the stream is one per subscription and due date', () => {
    assert.equal(cycleStream('sub_a', '2026-03-31'), 'cycle-sub_a-2026-03-31');
    assert.notEqual(cycleStream('sub_a', '2026-03-31'), cycleStream('sub_a', '2026-04-30'));
  });
  test('SPEC 2.5 error codes: attention and skip codes partition its list', () => {
    assert.deepEqual([...ATTENTION_CODES, ...SKIP_CODES].sort(), [
      'automatic_authorization_cancelled',
      'automatic_authorization_expired',
      'automatic_charge_exists',
      'automatic_schedule_window',
      'cycle_overdue',
      'payment_processing',
      'payment_unknown',
      'provider_rejected',
    ]);
  });
});

describe('cycle table as a property (fast-check)', () => {
  test('the code table is the transcribed one', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(cycleTransitions)), TABLE);
  });

  const command: fc.Arbitrary<CycleCommand> = fc.oneof(
    fc.constant(reserve),
    fc.record({
      kind: fc.constant('issue' as const),
      transactionId: fc.constantFrom(null, 'txn_1', 'txn_2'),
      checkoutId: fc.constantFrom(null, 'chk_1'),
    }),
    fc.record({
      kind: fc.constant('attention' as const),
      transactionId: fc.constantFrom(null, 'txn_1', 'txn_2'),
      errorCode: fc.constantFrom(...ATTENTION_CODES),
    }),
    fc.record({
      kind: fc.constant('skip' as const),
      identity: fc.constant(identity),
      errorCode: fc.constantFrom(...SKIP_CODES),
    }),
  );

  test('every decision is its cell; a final cycle never changes; at most one Reserved', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 30 }), (commands) => {
        const history: CycleEvent[] = [];
        let final: CycleState | null = null;
        for (const cmd of commands) {
          const state = fold(subscriptionCycle, history);
          const cell = TABLE[state.status][cmd.kind];
          const decision = subscriptionCycle.decide(cmd, state, { now: new Date('2026-03-31T12:00:00Z') });
          if ('refuse' in cell) {
            assert.ok(decision instanceof DomainError && decision.code === cell.refuse);
            continue;
          }
          assert.ok(!(decision instanceof DomainError));
          if ('noop' in cell) {
            assert.deepEqual(decision, []);
            continue;
          }
          assert.deepEqual(
            decision.map((e) => e.type),
            [cell.emits],
          );
          history.push(...decision);
          const next = fold(subscriptionCycle, history);
          assert.equal(next.status, cell.to);
          if (next.status !== 'pending' && next.status !== 'none') {
            assert.equal(final, null, 'a final cycle is reached once');
            final = next;
          }
        }
        if (final !== null)
          assert.deepEqual(fold(subscriptionCycle, history), final, 'a final cycle never changes');
        assert.ok(history.filter((e) => e.type === 'Cycle.Reserved').length <= 1, 'at most one Reserved');
      }),
      { numRuns: 500 },
    );
  });
});
