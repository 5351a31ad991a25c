import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import {
  CARD_DECLINE_CAP,
  type CheckoutCommand,
  type CheckoutCreatedData,
  type CheckoutEvent,
  type CheckoutMethod,
  checkout,
  checkoutTransitions,
  offeredMethods,
} from '../../src/aggregates/checkout.ts';
import { DomainError, fold } from '../../src/aggregates/decider.ts';
import { scenario } from '../support/given-when-then.ts';

/**
 * The checkout's decider (SPEC 2.7, 3.5; docs/decisions.md "Hosted checkout (issue 25)"): one
 * given/when/then per cell of the table, and a property over random histories against the table as
 * transcribed here (the oracle is this file's TABLE, never `checkoutTransitions`).
 */

const DEADLINE = '2026-03-02T12:00:00.000Z';
const before = { now: new Date('2026-03-01T12:00:00Z') };
const after = { now: new Date('2026-03-02T12:00:00Z') };

const data: CheckoutCreatedData = {
  checkout_id: 'chk_a',
  tenant_id: 'ten_a',
  livemode: false,
  methods: ['pix', 'boleto'],
  amount: 1250,
  reference: 'order-1',
  description: 'Pedido 1',
  customer: null,
  expires_at: DEADLINE,
  boleto: { due_in_days: 3 },
  callback_url: null,
  cost_center_id: null,
};
const C = 'chk_a';
const created: CheckoutEvent = { type: 'Checkout.Created', data };
const started = (id: string, method: CheckoutMethod = 'pix'): CheckoutEvent => ({
  type: 'Checkout.PaymentStarted',
  data: { checkout_id: C, transaction_id: id, method },
});
const attemptFailed = (id: string, outcome: 'failed' | 'expired' = 'failed'): CheckoutEvent => ({
  type: 'Checkout.PaymentFailed',
  data: { checkout_id: C, transaction_id: id, outcome },
});
const completed = (id: string): CheckoutEvent => ({
  type: 'Checkout.Completed',
  data: { checkout_id: C, transaction_id: id },
});
const late = (id: string): CheckoutEvent => ({
  type: 'Checkout.LatePaymentRecorded',
  data: { checkout_id: C, transaction_id: id },
});
const expired: CheckoutEvent = { type: 'Checkout.Expired', data: { checkout_id: C } };
const failed: CheckoutEvent = { type: 'Checkout.Failed', data: { checkout_id: C } };

const create: CheckoutCommand = { kind: 'create', data };
const start = (id: string, method: CheckoutMethod = 'pix'): CheckoutCommand => ({
  kind: 'start',
  transactionId: id,
  method,
});
const fail = (id: string, outcome: 'failed' | 'expired' = 'failed'): CheckoutCommand => ({
  kind: 'attempt_failed',
  transactionId: id,
  outcome,
});
const pay = (id: string): CheckoutCommand => ({ kind: 'attempt_paid', transactionId: id });
const expire: CheckoutCommand = { kind: 'expire' };

/** A history that leaves the checkout in each state. */
const HISTORY = {
  none: [] as CheckoutEvent[],
  open: [created],
  processing: [created, started('txn_1')],
  completed: [created, started('txn_1'), completed('txn_1')],
  expired: [created, expired],
  failed: [created, started('txn_1'), attemptFailed('txn_1'), failed],
};

describe('checkout table, one cell at a time (given/when/then)', () => {
  const s = scenario(checkout);
  // none
  test('none x create: Created -> open', () => {
    const state = s.given(HISTORY.none).when(create).thenEmits([created]);
    assert.equal(state.status, 'open');
  });
  for (const cmd of [start('txn_1'), fail('txn_1'), pay('txn_1'), expire]) {
    test(`none x ${cmd.kind}: 404 not_found`, () => {
      s.given(HISTORY.none).when(cmd).thenFails('not_found');
    });
  }
  // create on an existing checkout
  for (const row of ['open', 'processing', 'completed', 'expired', 'failed'] as const) {
    test(`${row} x create: the same facts are a no-op, others 409 conflict`, () => {
      s.given(HISTORY[row]).when(create).thenEmits([]);
      s.given(HISTORY[row])
        .when({ kind: 'create', data: { ...data, amount: 999 } })
        .thenFails('conflict');
    });
  }
  // open
  test('open x start: PaymentStarted -> processing', () => {
    const state = s
      .given(HISTORY.open)
      .when(start('txn_1'))
      .thenEmits([started('txn_1')]);
    assert.equal(state.status, 'processing');
  });
  test('open x attempt_failed: no-op (nothing pending); an unlinked transaction is 404', () => {
    s.given([created, started('txn_1'), attemptFailed('txn_1')])
      .when(fail('txn_1'))
      .thenEmits([]);
    s.given(HISTORY.open).when(fail('txn_9')).thenFails('not_found');
  });
  test('open x attempt_paid: Completed -> completed (a charge that ended and was paid after all)', () => {
    const state = s
      .given([created, started('txn_1'), attemptFailed('txn_1', 'expired')])
      .when(pay('txn_1'))
      .thenEmits([completed('txn_1')]);
    assert.equal(state.status, 'completed');
    assert.equal('paidTransactionId' in state && state.paidTransactionId, 'txn_1');
  });
  test('open x expire before the deadline: no-op', () => {
    s.given(HISTORY.open).when(expire, before).thenEmits([]);
  });
  test('open x expire at the deadline, no charge: Expired -> expired', () => {
    const state = s.given(HISTORY.open).when(expire, after).thenEmits([expired]);
    assert.equal(state.status, 'expired');
  });
  test('open x expire at the deadline, the last charge expired unpaid: Expired', () => {
    s.given([created, started('txn_1'), attemptFailed('txn_1', 'expired')])
      .when(expire, after)
      .thenEmits([expired]);
  });
  test('open x expire at the deadline, the last charge failed: Failed -> failed', () => {
    const state = s
      .given([created, started('txn_1'), attemptFailed('txn_1')])
      .when(expire, after)
      .thenEmits([failed]);
    assert.equal(state.status, 'failed');
  });
  // processing
  test('processing x start: another method while one is pending -> processing', () => {
    const state = s
      .given(HISTORY.processing)
      .when(start('txn_2', 'boleto'))
      .thenEmits([started('txn_2', 'boleto')]);
    assert.equal(state.status, 'processing');
  });
  test('processing x start of a linked transaction (double submit): no-op', () => {
    s.given(HISTORY.processing).when(start('txn_1')).thenEmits([]);
  });
  test('processing x attempt_failed, none left pending: PaymentFailed -> open (pick again)', () => {
    const state = s
      .given(HISTORY.processing)
      .when(fail('txn_1'))
      .thenEmits([attemptFailed('txn_1')]);
    assert.equal(state.status, 'open');
  });
  test('processing x attempt_failed, another still pending: PaymentFailed -> processing', () => {
    const state = s
      .given([...HISTORY.processing, started('txn_2', 'boleto')])
      .when(fail('txn_1'))
      .thenEmits([attemptFailed('txn_1')]);
    assert.equal(state.status, 'processing');
  });
  test('processing x attempt_paid: Completed -> completed', () => {
    const state = s
      .given(HISTORY.processing)
      .when(pay('txn_1'))
      .thenEmits([completed('txn_1')]);
    assert.equal(state.status, 'completed');
  });
  test('processing x expire: no-op even past the deadline (its charge may still be paid)', () => {
    s.given(HISTORY.processing).when(expire, after).thenEmits([]);
  });
  // completed, expired, failed
  for (const row of ['completed', 'expired', 'failed'] as const) {
    test(`${row} x start: the charge is still linked (never lost), status kept`, () => {
      const state = s
        .given(HISTORY[row])
        .when(start('txn_7'))
        .thenEmits([started('txn_7')]);
      assert.equal(state.status, row);
    });
    test(`${row} x attempt_failed: no-op`, () => {
      s.given([...HISTORY[row], started('txn_7')])
        .when(fail('txn_7'))
        .thenEmits([]);
    });
    test(`${row} x attempt_paid of another charge: LatePaymentRecorded, status kept`, () => {
      const state = s
        .given([...HISTORY[row], started('txn_7')])
        .when(pay('txn_7'))
        .thenEmits([late('txn_7')]);
      assert.equal(state.status, row);
      assert.deepEqual('latePayments' in state && state.latePayments, ['txn_7']);
    });
    test(`${row} x expire: no-op`, () => {
      s.given(HISTORY[row]).when(expire, after).thenEmits([]);
    });
  }
  test('completed x attempt_paid of the paid charge: no-op (reported once)', () => {
    s.given(HISTORY.completed).when(pay('txn_1')).thenEmits([]);
  });
});

describe('carding cap: rule (c) of the table (given/when/then)', () => {
  const s = scenario(checkout);
  const withCard: CheckoutEvent = {
    type: 'Checkout.Created',
    data: { ...data, methods: ['pix', 'credit_card'] },
  };
  const cardOnly: CheckoutEvent = { type: 'Checkout.Created', data: { ...data, methods: ['credit_card'] } };
  /** `n` card charges, each declined (`failed`). */
  const declines = (n: number, from = 1): CheckoutEvent[] =>
    Array.from({ length: n }, (_, i) => [
      started(`txn_c${from + i}`, 'credit_card'),
      attemptFailed(`txn_c${from + i}`),
    ]).flat();
  const offered = (history: CheckoutEvent[]) => offeredMethods(fold(checkout, history));

  test('the cap is 5 declined card charges (docs/decisions.md "Hosted checkout", carding cap)', () => {
    assert.equal(CARD_DECLINE_CAP, 5);
  });
  test('given 4 declined cards, the card is still offered', () => {
    assert.deepEqual(offered([withCard, ...declines(4)]), ['pix', 'credit_card']);
  });
  test('given 5 declined cards, the card is no longer offered; Pix stays, the checkout stays open', () => {
    const history = [withCard, ...declines(5)];
    assert.deepEqual(offered(history), ['pix']);
    assert.equal(fold(checkout, history).status, 'open');
    // The payer may still pay by Pix: picked and linked as before.
    s.given(history)
      .when(start('txn_p', 'pix'))
      .thenEmits([started('txn_p', 'pix')]);
  });
  test('only declined card charges count: a failed Pix, an expired or pending card do not', () => {
    const others: CheckoutEvent[] = [
      started('txn_p', 'pix'),
      attemptFailed('txn_p'),
      started('txn_e', 'credit_card'),
      attemptFailed('txn_e', 'expired'),
      started('txn_w', 'credit_card'),
    ];
    assert.deepEqual(offered([withCard, ...declines(4), ...others]), ['pix', 'credit_card']);
  });
  test('a card-only checkout past the cap offers nothing (the page tells the payer to ask the merchant)', () => {
    assert.deepEqual(offered([cardOnly, ...declines(5)]), []);
  });
  test('a card charge already made when the cap is reached (two picks at once) is still linked, never lost', () => {
    const state = s
      .given([withCard, ...declines(5)])
      .when(start('txn_late', 'credit_card'))
      .thenEmits([started('txn_late', 'credit_card')]);
    assert.equal(state.status, 'processing');
  });
  test('a checkout never created offers nothing', () => {
    assert.deepEqual(offered([]), []);
  });
});

type Expect =
  | { refuse: string }
  | { noop: true }
  | { repeat: true }
  | { emits: readonly string[]; to: readonly string[] };

/** The table of docs/decisions.md "Hosted checkout (issue 25)", transcribed: the property's oracle. */
const TABLE: Record<string, Record<CheckoutCommand['kind'], Expect>> = {
  none: {
    create: { emits: ['Checkout.Created'], to: ['open'] },
    start: { refuse: 'not_found' },
    attempt_failed: { refuse: 'not_found' },
    attempt_paid: { refuse: 'not_found' },
    expire: { refuse: 'not_found' },
  },
  open: {
    create: { repeat: true },
    start: { emits: ['Checkout.PaymentStarted'], to: ['processing'] },
    attempt_failed: { noop: true },
    attempt_paid: { emits: ['Checkout.Completed'], to: ['completed'] },
    expire: { emits: ['Checkout.Expired', 'Checkout.Failed'], to: ['expired', 'failed'] },
  },
  processing: {
    create: { repeat: true },
    start: { emits: ['Checkout.PaymentStarted'], to: ['processing'] },
    attempt_failed: { emits: ['Checkout.PaymentFailed'], to: ['open', 'processing'] },
    attempt_paid: { emits: ['Checkout.Completed'], to: ['completed'] },
    expire: { noop: true },
  },
  ...Object.fromEntries(
    (['completed', 'expired', 'failed'] as const).map((row) => [
      row,
      {
        create: { repeat: true },
        start: { emits: ['Checkout.PaymentStarted'], to: [row] },
        attempt_failed: { noop: true },
        attempt_paid: { emits: ['Checkout.LatePaymentRecorded'], to: [row] },
        expire: { noop: true },
      },
    ]),
  ),
};

describe('checkout table as a property (fast-check)', () => {
  test('the code table is the transcribed one', () => {
    const normalized = JSON.parse(
      JSON.stringify(checkoutTransitions, (_k, v) =>
        v && typeof v === 'object' && 'repeat' in v ? { repeat: true } : v,
      ),
    );
    assert.deepEqual(normalized, TABLE);
  });

  const ids = ['txn_1', 'txn_2', 'txn_3'];
  const command: fc.Arbitrary<CheckoutCommand> = fc.oneof(
    fc.constant(create),
    fc.record({
      kind: fc.constant('start' as const),
      transactionId: fc.constantFrom(...ids),
      method: fc.constantFrom('pix' as const, 'boleto' as const, 'credit_card' as const),
    }),
    fc.record({
      kind: fc.constant('attempt_failed' as const),
      transactionId: fc.constantFrom(...ids),
      outcome: fc.constantFrom('failed' as const, 'expired' as const),
    }),
    fc.record({ kind: fc.constant('attempt_paid' as const), transactionId: fc.constantFrom(...ids) }),
    fc.constant(expire),
  );

  test('every decision is its cell; one paid charge completes; every payment is kept', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(command, fc.boolean()), { maxLength: 40 }), (steps) => {
        const history: CheckoutEvent[] = [];
        const paid = new Set<string>();
        for (const [cmd, late_] of steps) {
          const ctx = late_ ? after : before;
          const state = fold(checkout, history);
          const cell = TABLE[state.status]?.[cmd.kind];
          assert.ok(cell, `${state.status} x ${cmd.kind}`);
          const decision = checkout.decide(cmd, state, ctx);
          const linked =
            state.status !== 'none' && 'transactionId' in cmd
              ? state.attempts.some((a) => a.transactionId === cmd.transactionId)
              : false;
          if ('refuse' in cell) {
            assert.ok(decision instanceof DomainError && decision.code === cell.refuse);
            continue;
          }
          if ((cmd.kind === 'attempt_paid' || cmd.kind === 'attempt_failed') && !linked) {
            assert.ok(decision instanceof DomainError && decision.code === 'not_found', 'unlinked: 404');
            continue;
          }
          assert.ok(!(decision instanceof DomainError), `${state.status} x ${cmd.kind} is not refused`);
          if ('noop' in cell || 'repeat' in cell) {
            assert.deepEqual(decision, []);
            continue;
          }
          assert.ok(decision.length <= 1);
          for (const e of decision) assert.ok(cell.emits.includes(e.type), `${e.type} in ${cell.emits}`);
          history.push(...decision);
          const next = fold(checkout, history);
          if (decision.length > 0) assert.ok(cell.to.includes(next.status), `${next.status} in ${cell.to}`);
          else assert.equal(next.status, state.status);
          if (cmd.kind === 'attempt_paid') paid.add(cmd.transactionId);
        }
        const end = fold(checkout, history);
        if (end.status === 'none') return;
        // Only one paid transaction completes it; every other payment is a late payment, never lost.
        const completions = history.filter((e) => e.type === 'Checkout.Completed');
        assert.ok(completions.length <= 1);
        assert.equal(end.status === 'completed', end.paidTransactionId !== null);
        const kept = new Set([
          ...(end.paidTransactionId ? [end.paidTransactionId] : []),
          ...end.latePayments,
        ]);
        assert.deepEqual([...kept].sort(), [...paid].sort());
        assert.equal(
          kept.size,
          (end.paidTransactionId ? 1 : 0) + end.latePayments.length,
          'no payment twice',
        );
        // processing iff a charge is pending, among open/processing.
        if (end.status === 'open' || end.status === 'processing') {
          assert.equal(
            end.status === 'processing',
            end.attempts.some((a) => a.outcome === 'pending'),
          );
        }
      }),
      { numRuns: 500 },
    );
  });
});
