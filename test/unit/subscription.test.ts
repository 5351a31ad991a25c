import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { DomainError, fold } from '../../src/aggregates/decider.ts';
import {
  type SubscriptionCommand,
  type SubscriptionCreatedData,
  type SubscriptionEvent,
  type SubscriptionState,
  subscription,
  subscriptionTransitions,
} from '../../src/aggregates/subscription.ts';
import { cycleDueDate } from '../../src/aggregates/subscription-calendar.ts';
import { scenario } from '../support/given-when-then.ts';
import { subscriptionData } from '../support/subscriptions.ts';

/**
 * The subscription's decider (SPEC 2.4, 3.3, 4.10; docs/decisions.md "Subscriptions (issue 26)"): one
 * given/when/then per cell of its table, the cycle rule (c), and a property over random command sequences.
 * The oracle is this file's TABLE, transcribed from SPEC 3.3 and the scheduler's moves of the table's comment,
 * never `subscriptionTransitions`.
 */

const ctx = { now: new Date('2026-01-10T12:00:00Z') };
const S = 'sub_a';

const data: SubscriptionCreatedData = subscriptionData();
const automaticData: SubscriptionCreatedData = {
  ...data,
  method: 'pix_automatic',
  advance_days: 2,
  authorization_id: 'pxa_a',
};
const card = {
  card: { card_id: null, brand: 'visa', last_four: '1111', holder: 'MARIA SILVA', expiration: '12/2030' },
  provider_id: null,
  environment: 'sandbox' as const,
  token_sealed: 'v1.aaaa.bbbb.cccc',
};

const created: SubscriptionEvent = { type: 'Subscription.Created', data };
const paused: SubscriptionEvent = { type: 'Subscription.Paused', data: { subscription_id: S } };
const resumed: SubscriptionEvent = { type: 'Subscription.Resumed', data: { subscription_id: S } };
const cancelled = (reason: string | null = null): SubscriptionEvent => ({
  type: 'Subscription.Cancelled',
  data: { subscription_id: S, reason },
});
const deleted: SubscriptionEvent = { type: 'Subscription.Deleted', data: { subscription_id: S } };
const cardRegistered: SubscriptionEvent = {
  type: 'Subscription.CardRegistered',
  data: { subscription_id: S, ...card },
};
const costCenterChanged = (id: string | null): SubscriptionEvent => ({
  type: 'Subscription.CostCenterChanged',
  data: { subscription_id: S, cost_center_id: id },
});
const cycleStarted = (cycle: number, due_date: string): SubscriptionEvent => ({
  type: 'Subscription.CycleStarted',
  data: { subscription_id: S, cycle, due_date },
});
const emissionFailed = (
  cycle: number,
  due_date: string,
  reason = 'live_payments_disabled',
): SubscriptionEvent => ({
  type: 'Subscription.EmissionFailed',
  data: { subscription_id: S, cycle, due_date, reason, next_attempt_at: '2026-01-31T03:15:00.000Z' },
});
const cycleSettled = (
  cycle: number,
  due_date: string,
  outcome: 'created' | 'attention' | 'skipped' = 'created',
): SubscriptionEvent => ({
  type: 'Subscription.CycleSettled',
  data: { subscription_id: S, cycle, due_date, outcome },
});

const create: SubscriptionCommand = { kind: 'create', data };
const pause: SubscriptionCommand = { kind: 'pause' };
const resume = (automaticAvailable = true): SubscriptionCommand => ({ kind: 'resume', automaticAvailable });
const cancel: SubscriptionCommand = { kind: 'cancel' };
const del: SubscriptionCommand = { kind: 'delete' };
const registerCard: SubscriptionCommand = { kind: 'register_card', card };
const changeCostCenter = (costCenterId: string | null): SubscriptionCommand => ({
  kind: 'change_cost_center',
  costCenterId,
});
const startCycle = (cycle: number, dueDate: string): SubscriptionCommand => ({
  kind: 'start_cycle',
  cycle,
  dueDate,
});
const failEmission = (cycle: number, dueDate: string): SubscriptionCommand => ({
  kind: 'emission_failed',
  cycle,
  dueDate,
  reason: 'live_payments_disabled',
  nextAttemptAt: '2026-01-31T03:15:00.000Z',
});
/** An earlier attempt than failEmission's retry (03:15): the next minute after an approval. */
const bringForward = (
  cycle: number,
  dueDate: string,
  at = '2026-01-31T03:01:00.000Z',
): SubscriptionCommand => ({
  kind: 'bring_forward',
  cycle,
  dueDate,
  nextAttemptAt: at,
});
const settle = (
  cycle: number,
  dueDate: string,
  outcome: 'created' | 'attention' | 'skipped' = 'created',
): SubscriptionCommand => ({ kind: 'settle_cycle', cycle, dueDate, outcome });

/** A history that leaves the subscription in each state of the table. */
const HISTORY: Record<'none' | 'active' | 'paused' | 'cancelled' | 'deleted', SubscriptionEvent[]> = {
  none: [],
  active: [created],
  paused: [created, paused],
  cancelled: [created, cancelled()],
  deleted: [created, deleted],
};
const KINDS = [
  'create',
  'register_card',
  'pause',
  'resume',
  'cancel',
  'change_cost_center',
  'start_cycle',
  'emission_failed',
  'bring_forward',
  'settle_cycle',
  'delete',
] as const;
type Kind = (typeof KINDS)[number];
type Row = keyof typeof HISTORY;

type Expect =
  | { refuse: string }
  | { noop: true }
  | { repeat: true }
  | { emits: string; to: string }
  /** The cycle rule (c): the event when the command names the cycle in question, else a no-op; status kept. */
  | { cycle: string };

/**
 * SPEC 3.3, transcribed (with the scheduler's moves of docs/decisions.md "Subscriptions (issue 26)"):
 * - create -> active; a repeated creation replays; pause active -> paused (affects only future emissions);
 *   resume paused -> active (a Pix Automatic whose authorization ended: 409 automatic_not_available);
 *   cancel active/paused -> cancelled, final; any status change of a cancelled one 409 subscription_cancelled.
 * - pausing a paused one, resuming an active one, cancelling a cancelled one: nothing to do.
 * - a card can be registered and the cost center changed while not cancelled (the cost center also after:
 *   classification only); the panel deletes in any status; a deleted or missing one is 404.
 * - the scheduler starts a cycle only while active (paused: 409 conflict, cancelled: 409
 *   subscription_cancelled); a started emission fails or settles in any status (SPEC 3.3: "an emission in
 *   progress finishes before a status change takes effect").
 */
const NOT_FOUND: Record<Kind, Expect> = Object.fromEntries(
  KINDS.map((k) => [k, { refuse: 'not_found' }]),
) as Record<Kind, Expect>;
const sc = { refuse: 'subscription_cancelled' };
const TABLE: Record<Row, Record<Kind, Expect>> = {
  none: { ...NOT_FOUND, create: { emits: 'Subscription.Created', to: 'active' } },
  active: {
    create: { repeat: true },
    register_card: { emits: 'Subscription.CardRegistered', to: 'active' },
    pause: { emits: 'Subscription.Paused', to: 'paused' },
    resume: { noop: true },
    cancel: { emits: 'Subscription.Cancelled', to: 'cancelled' },
    change_cost_center: { emits: 'Subscription.CostCenterChanged', to: 'active' },
    start_cycle: { cycle: 'Subscription.CycleStarted' },
    emission_failed: { cycle: 'Subscription.EmissionFailed' },
    bring_forward: { cycle: 'Subscription.AttemptBroughtForward' },
    settle_cycle: { cycle: 'Subscription.CycleSettled' },
    delete: { emits: 'Subscription.Deleted', to: 'deleted' },
  },
  paused: {
    create: { repeat: true },
    register_card: { emits: 'Subscription.CardRegistered', to: 'paused' },
    pause: { noop: true },
    resume: { emits: 'Subscription.Resumed', to: 'active' },
    cancel: { emits: 'Subscription.Cancelled', to: 'cancelled' },
    change_cost_center: { emits: 'Subscription.CostCenterChanged', to: 'paused' },
    start_cycle: { refuse: 'conflict' },
    emission_failed: { cycle: 'Subscription.EmissionFailed' },
    bring_forward: { cycle: 'Subscription.AttemptBroughtForward' },
    settle_cycle: { cycle: 'Subscription.CycleSettled' },
    delete: { emits: 'Subscription.Deleted', to: 'deleted' },
  },
  cancelled: {
    create: { repeat: true },
    register_card: sc,
    pause: sc,
    resume: sc,
    cancel: { noop: true },
    change_cost_center: { emits: 'Subscription.CostCenterChanged', to: 'cancelled' },
    start_cycle: sc,
    emission_failed: { cycle: 'Subscription.EmissionFailed' },
    bring_forward: { cycle: 'Subscription.AttemptBroughtForward' },
    settle_cycle: { cycle: 'Subscription.CycleSettled' },
    delete: { emits: 'Subscription.Deleted', to: 'deleted' },
  },
  deleted: NOT_FOUND,
};

describe('subscription table, one cell at a time (given/when/then; SPEC 3.3)', () => {
  const s = scenario(subscription);

  test('none x create: Created -> active, cycle 0, next due date the first one', () => {
    const state = s.given([]).when(create).thenEmits([created]);
    assert.equal(state.status, 'active');
    assert.ok(state.status === 'active' && state.cycle === 0 && state.nextDueDate === '2026-01-31');
  });
  test('none x create with an invalid payload: 422 validation_error', () => {
    s.given([])
      .when({ kind: 'create', data: { ...data, amount: 0 } })
      .thenFails('validation_error');
  });
  for (const row of ['none', 'deleted'] as const) {
    for (const cmd of [
      registerCard,
      pause,
      resume(),
      cancel,
      changeCostCenter('cc_1'),
      startCycle(1, '2026-01-31'),
      failEmission(1, '2026-01-31'),
      settle(1, '2026-01-31', 'skipped'),
      del,
    ]) {
      test(`${row} x ${cmd.kind}: 404 not_found`, () => {
        s.given(HISTORY[row]).when(cmd).thenFails('not_found');
      });
    }
  }
  test('deleted x create: 404 not_found (never re-created)', () => {
    s.given(HISTORY.deleted).when(create).thenFails('not_found');
  });

  for (const row of ['active', 'paused', 'cancelled'] as const) {
    test(`${row} x create: the same facts replay (no-op), others 409 conflict`, () => {
      s.given(HISTORY[row]).when(create).thenEmits([]);
      s.given(HISTORY[row])
        .when({ kind: 'create', data: { ...data, amount: 1 } })
        .thenFails('conflict');
    });
    test(`${row} x delete: Deleted -> deleted`, () => {
      const state = s.given(HISTORY[row]).when(del).thenEmits([deleted]);
      assert.equal(state.status, 'deleted');
    });
    test(`${row} x change_cost_center: CostCenterChanged, status kept; the same center is a no-op`, () => {
      const state = s
        .given(HISTORY[row])
        .when(changeCostCenter('cc_1'))
        .thenEmits([costCenterChanged('cc_1')]);
      assert.equal(state.status, row);
      assert.ok(state.status === row && state.costCenterId === 'cc_1');
      s.given([...HISTORY[row], costCenterChanged('cc_1')])
        .when(changeCostCenter('cc_1'))
        .thenEmits([]);
      s.given([...HISTORY[row], costCenterChanged('cc_1')])
        .when(changeCostCenter(null))
        .thenEmits([costCenterChanged(null)]);
    });
  }

  test('active x register_card: CardRegistered, active, the sealed token kept', () => {
    const state = s.given(HISTORY.active).when(registerCard).thenEmits([cardRegistered]);
    assert.ok(state.status === 'active' && state.card?.token_sealed === card.token_sealed);
  });
  test('paused x register_card: CardRegistered, still paused', () => {
    const state = s.given(HISTORY.paused).when(registerCard).thenEmits([cardRegistered]);
    assert.equal(state.status, 'paused');
  });
  test('cancelled x register_card: 409 subscription_cancelled', () => {
    s.given(HISTORY.cancelled).when(registerCard).thenFails('subscription_cancelled');
  });

  test('active x pause: Paused -> paused', () => {
    assert.equal(s.given(HISTORY.active).when(pause).thenEmits([paused]).status, 'paused');
  });
  test('paused x pause: no-op', () => {
    s.given(HISTORY.paused).when(pause).thenEmits([]);
  });
  test('cancelled x pause: 409 subscription_cancelled', () => {
    s.given(HISTORY.cancelled).when(pause).thenFails('subscription_cancelled');
  });

  test('active x resume: no-op', () => {
    s.given(HISTORY.active).when(resume()).thenEmits([]);
  });
  test('paused x resume: Resumed -> active, last_error cleared', () => {
    const state = s
      .given([created, cycleStarted(1, '2026-01-31'), emissionFailed(1, '2026-01-31'), paused])
      .when(resume())
      .thenEmits([resumed]);
    assert.ok(state.status === 'active' && state.lastError === null && state.nextAttemptAt === null);
  });
  test('paused x resume of a boleto whose "authorization" is not available: Resumed (the rule is Pix Automatic only)', () => {
    s.given(HISTORY.paused).when(resume(false)).thenEmits([resumed]);
  });
  test('paused x resume of a Pix Automatic whose authorization ended: 409 automatic_not_available, still paused', () => {
    const automatic: SubscriptionEvent = { type: 'Subscription.Created', data: automaticData };
    s.given([automatic, paused]).when(resume(false)).thenFails('automatic_not_available');
    s.given([automatic, paused]).when(resume(true)).thenEmits([resumed]);
  });
  test('cancelled x resume: 409 subscription_cancelled (SPEC 3.3: a cancelled one cannot be reactivated)', () => {
    s.given(HISTORY.cancelled).when(resume()).thenFails('subscription_cancelled');
    s.given(HISTORY.cancelled).when(resume(false)).thenFails('subscription_cancelled');
  });

  test('active x cancel: Cancelled -> cancelled (the integrator: no reason)', () => {
    const state = s.given(HISTORY.active).when(cancel).thenEmits([cancelled()]);
    assert.ok(state.status === 'cancelled' && state.cancelReason === null);
  });
  test('paused x cancel: Cancelled -> cancelled, with the gateway reason when given', () => {
    const state = s
      .given(HISTORY.paused)
      .when({ kind: 'cancel', reason: 'provider_rejected' })
      .thenEmits([cancelled('provider_rejected')]);
    assert.ok(state.status === 'cancelled' && state.cancelReason === 'provider_rejected');
  });
  test('cancelled x cancel: no-op (final)', () => {
    s.given(HISTORY.cancelled).when(cancel).thenEmits([]);
  });

  test('active x start_cycle of the next cycle: CycleStarted, the cycle in progress', () => {
    const state = s
      .given(HISTORY.active)
      .when(startCycle(1, '2026-01-31'))
      .thenEmits([cycleStarted(1, '2026-01-31')]);
    assert.ok(state.status === 'active');
    assert.deepEqual(state.pending, { cycle: 1, dueDate: '2026-01-31' });
    assert.equal(state.cycle, 1);
  });
  test('paused x start_cycle: 409 conflict (a paused subscription issues nothing)', () => {
    s.given(HISTORY.paused).when(startCycle(1, '2026-01-31')).thenFails('conflict');
  });
  test('cancelled x start_cycle: 409 subscription_cancelled', () => {
    s.given(HISTORY.cancelled).when(startCycle(1, '2026-01-31')).thenFails('subscription_cancelled');
  });
  for (const row of ['active', 'paused', 'cancelled'] as const) {
    const inProgress = (after: SubscriptionEvent[]) => [created, cycleStarted(1, '2026-01-31'), ...after];
    const tail = { active: [], paused: [paused], cancelled: [cancelled()] }[row];
    test(`${row} x emission_failed of the cycle in progress: EmissionFailed, last_error and the retry kept`, () => {
      const state = s
        .given(inProgress(tail))
        .when(failEmission(1, '2026-01-31'))
        .thenEmits([emissionFailed(1, '2026-01-31')]);
      assert.ok(state.status === row);
      assert.equal(state.lastError, 'live_payments_disabled');
      assert.equal(state.nextAttemptAt, '2026-01-31T03:15:00.000Z');
      assert.deepEqual(state.pending, { cycle: 1, dueDate: '2026-01-31' });
    });
    test(`${row} x settle_cycle of the cycle in progress: CycleSettled, the calendar moves on (SPEC 3.3: it finishes)`, () => {
      const state = s
        .given(inProgress([emissionFailed(1, '2026-01-31'), ...tail]))
        .when(settle(1, '2026-01-31', 'attention'))
        .thenEmits([cycleSettled(1, '2026-01-31', 'attention')]);
      assert.ok(state.status === row);
      assert.equal(state.pending, null);
      assert.equal(state.cycle, 1);
      // Jan 31 monthly: February's last day (SPEC 4.10).
      assert.equal(state.nextDueDate, '2026-02-28');
      assert.equal(state.lastError, null);
      assert.equal(state.nextAttemptAt, null);
    });
  }
});

describe('the cycle rule (c)', () => {
  const s = scenario(subscription);
  const started = [created, cycleStarted(1, '2026-01-31')];

  test('start_cycle names the next cycle and its due date, else 409 conflict', () => {
    s.given(HISTORY.active).when(startCycle(2, '2026-02-28')).thenFails('conflict');
    s.given(HISTORY.active).when(startCycle(1, '2026-02-01')).thenFails('conflict');
    s.given(HISTORY.active).when(startCycle(0, '2026-01-31')).thenFails('conflict');
    s.given([...started, cycleSettled(1, '2026-01-31')])
      .when(startCycle(2, '2026-02-28'))
      .thenEmits([cycleStarted(2, '2026-02-28')]);
  });
  test('start_cycle repeating the cycle in progress is a no-op (a second worker); another one is 409', () => {
    s.given(started).when(startCycle(1, '2026-01-31')).thenEmits([]);
    s.given(started).when(startCycle(2, '2026-02-28')).thenFails('conflict');
  });
  test('bring_forward (SPEC 4.11: an approval found brings the attempt to the next minute) moves only an earlier attempt of the cycle in progress', () => {
    const failed = [...started, emissionFailed(1, '2026-01-31')];
    const state = s
      .given(failed)
      .when(bringForward(1, '2026-01-31'))
      .thenEmits([
        {
          type: 'Subscription.AttemptBroughtForward',
          data: {
            subscription_id: created.data.subscription_id,
            cycle: 1,
            due_date: '2026-01-31',
            next_attempt_at: '2026-01-31T03:01:00.000Z',
          },
        },
      ]);
    assert.ok(state.status === 'active' && state.nextAttemptAt === '2026-01-31T03:01:00.000Z');
    assert.ok(state.status === 'active' && state.lastError === 'live_payments_disabled');
    // Not later than the attempt already set, no attempt set, or another cycle: nothing to do.
    s.given(failed)
      .when(bringForward(1, '2026-01-31', '2026-01-31T03:15:00.000Z'))
      .thenEmits([]);
    s.given(started).when(bringForward(1, '2026-01-31')).thenEmits([]);
    s.given(failed).when(bringForward(2, '2026-02-28')).thenEmits([]);
    s.given(HISTORY.active).when(bringForward(1, '2026-01-31')).thenEmits([]);
  });
  test('emission_failed or settle_cycle of a cycle not in progress is a no-op (a late or repeated report)', () => {
    s.given(HISTORY.active).when(failEmission(1, '2026-01-31')).thenEmits([]);
    s.given(started).when(failEmission(2, '2026-02-28')).thenEmits([]);
    s.given(started).when(settle(2, '2026-02-28')).thenEmits([]);
    s.given([...started, cycleSettled(1, '2026-01-31')])
      .when(settle(1, '2026-01-31'))
      .thenEmits([]);
  });
  test('settle_cycle may skip the next cycle with none in progress (an overdue one), not issue it', () => {
    const state = s
      .given(HISTORY.active)
      .when(settle(1, '2026-01-31', 'skipped'))
      .thenEmits([cycleSettled(1, '2026-01-31', 'skipped')]);
    assert.ok(state.status === 'active' && state.cycle === 1 && state.nextDueDate === '2026-02-28');
    s.given(HISTORY.active)
      .when(settle(1, '2026-01-31', 'created'))
      .thenEmits([]);
    s.given(HISTORY.active)
      .when(settle(2, '2026-02-28', 'skipped'))
      .thenEmits([]);
    // While paused too: the scheduler skips what fell due during the pause once resumed, never charges it.
    s.given(HISTORY.paused)
      .when(settle(1, '2026-01-31', 'skipped'))
      .thenEmits([cycleSettled(1, '2026-01-31', 'skipped')]);
  });
  test('an emission in progress finishes after a pause or a cancel (SPEC 3.3)', () => {
    s.given([...started, paused])
      .when(settle(1, '2026-01-31'))
      .thenEmits([cycleSettled(1, '2026-01-31')]);
    s.given([...started, cancelled()])
      .when(settle(1, '2026-01-31', 'attention'))
      .thenEmits([cycleSettled(1, '2026-01-31', 'attention')]);
  });
});

describe('subscription table as a property (fast-check)', () => {
  test('the code table is the transcribed one', () => {
    const normalized = JSON.parse(
      JSON.stringify(subscriptionTransitions, (_k, v) => {
        if (v && typeof v === 'object' && 'repeat' in v) return { repeat: true };
        if (v && typeof v === 'object' && 'cycleRule' in v) return { cycle: v.cycleRule };
        return v;
      }),
    );
    assert.deepEqual(normalized, TABLE);
  });

  const dates = ['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30', '2026-05-31'];
  /** A cycle reference: the one the calendar gives next (`next`), the one in progress, or any. */
  const ref = fc.oneof(
    fc.constant('next' as const),
    fc.constant('pending' as const),
    fc.record({ cycle: fc.integer({ min: 0, max: 5 }), dueDate: fc.constantFrom(...dates) }),
  );
  type Ref = 'next' | 'pending' | { cycle: number; dueDate: string };
  const outcome = fc.constantFrom('created' as const, 'attention' as const, 'skipped' as const);
  const step = fc.oneof(
    { weight: 1, arbitrary: fc.constant({ kind: 'create' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'register_card' as const }) },
    { weight: 2, arbitrary: fc.constant({ kind: 'pause' as const }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('resume' as const), available: fc.boolean() }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'cancel' as const }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('change_cost_center' as const),
        id: fc.constantFrom(null, 'cc_1', 'cc_2'),
      }),
    },
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('start_cycle' as const), ref }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('emission_failed' as const), ref }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('bring_forward' as const), ref }) },
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('settle_cycle' as const), ref, outcome }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'delete' as const }) },
  );
  type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

  /** The cycle a reference names, computed here from the calendar (not from the state's next due date). */
  function resolve(r: Ref, state: SubscriptionState, first: string, interval: number) {
    if (typeof r === 'object') return r;
    const cycle = state.status === 'none' || state.status === 'deleted' ? 0 : state.cycle;
    if (r === 'pending' && state.status !== 'none' && state.status !== 'deleted' && state.pending) {
      return { ...state.pending };
    }
    return { cycle: cycle + 1, dueDate: cycleDueDate(first, interval, cycle + 1) };
  }

  function commandOf(s: Step, state: SubscriptionState, d: SubscriptionCreatedData): SubscriptionCommand {
    const at = (r: Ref) => resolve(r, state, d.first_due_date, d.interval_months);
    switch (s.kind) {
      case 'create':
        return { kind: 'create', data: d };
      case 'register_card':
        return registerCard;
      case 'pause':
        return pause;
      case 'resume':
        return resume(s.available);
      case 'cancel':
        return cancel;
      case 'change_cost_center':
        return changeCostCenter(s.id);
      case 'start_cycle': {
        const c = at(s.ref);
        return startCycle(c.cycle, c.dueDate);
      }
      case 'emission_failed': {
        const c = at(s.ref);
        return failEmission(c.cycle, c.dueDate);
      }
      case 'bring_forward': {
        const c = at(s.ref);
        return bringForward(c.cycle, c.dueDate);
      }
      case 'settle_cycle': {
        const c = at(s.ref);
        return settle(c.cycle, c.dueDate, s.outcome);
      }
      case 'delete':
        return del;
    }
  }

  /** What the cycle rule expects: the event when the command names the cycle in question, else nothing. */
  function cycleRuleApplies(
    command: SubscriptionCommand,
    state: SubscriptionState,
    d: SubscriptionCreatedData,
  ) {
    if (state.status === 'none' || state.status === 'deleted') return false;
    if (!('cycle' in command)) return false;
    const names = (p: { cycle: number; dueDate: string } | null) =>
      p !== null && p.cycle === command.cycle && p.dueDate === command.dueDate;
    const next = {
      cycle: state.cycle + 1,
      dueDate: cycleDueDate(d.first_due_date, d.interval_months, state.cycle + 1),
    };
    if (command.kind === 'start_cycle') return state.pending === null && names(next);
    if (command.kind === 'emission_failed') return names(state.pending);
    if (command.kind === 'bring_forward') {
      const at = state.nextAttemptAt;
      return names(state.pending) && at !== null && Date.parse(at) > Date.parse(command.nextAttemptAt);
    }
    if (command.kind === 'settle_cycle') {
      return names(state.pending) || (state.pending === null && command.outcome === 'skipped' && names(next));
    }
    return false;
  }

  test('every decision is its cell; cancelled is never left (but for deletion); cycle never goes back; the calendar holds', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(data, automaticData, { ...data, first_due_date: '2024-08-31', interval_months: 6 }),
        fc.array(step, { minLength: 10, maxLength: 60 }),
        (d, steps) => {
          const history: SubscriptionEvent[] = [{ type: 'Subscription.Created', data: d }];
          let wasCancelled = false;
          for (const st of steps) {
            const state = fold(subscription, history);
            const command = commandOf(st, state, d);
            const cell = TABLE[state.status as Row][command.kind];
            const decision = subscription.decide(command, state, ctx);
            if ('refuse' in cell) {
              assert.ok(decision instanceof DomainError && decision.code === cell.refuse, cell.refuse);
              continue;
            }
            if ('noop' in cell || 'repeat' in cell) {
              assert.deepEqual(decision, []);
              continue;
            }
            if ('cycle' in cell) {
              const applies = cycleRuleApplies(command, state, d);
              if (command.kind === 'start_cycle' && !applies) {
                const repeat =
                  state.status !== 'none' &&
                  state.status !== 'deleted' &&
                  state.pending?.cycle === command.cycle &&
                  state.pending.dueDate === command.dueDate;
                if (repeat) assert.deepEqual(decision, []);
                else assert.ok(decision instanceof DomainError && decision.code === 'conflict');
                continue;
              }
              assert.ok(!(decision instanceof DomainError), `${state.status} x ${command.kind}`);
              assert.deepEqual(
                decision.map((e) => e.type),
                applies ? [cell.cycle] : [],
              );
              history.push(...decision);
              assert.equal(fold(subscription, history).status, state.status);
              continue;
            }
            if (command.kind === 'resume' && d.method === 'pix_automatic' && !command.automaticAvailable) {
              assert.ok(decision instanceof DomainError && decision.code === 'automatic_not_available');
              continue;
            }
            if (
              command.kind === 'change_cost_center' &&
              state.status !== 'none' &&
              state.status !== 'deleted'
            ) {
              if (state.costCenterId === command.costCenterId) {
                assert.deepEqual(decision, []);
                continue;
              }
            }
            assert.ok(!(decision instanceof DomainError), `${state.status} x ${command.kind}`);
            assert.deepEqual(
              decision.map((e) => e.type),
              [cell.emits],
            );
            history.push(...decision);
            assert.equal(fold(subscription, history).status, cell.to);
          }
          // Invariants over the whole history.
          let previousCycle = 0;
          const states: SubscriptionState[] = [];
          let acc: SubscriptionState = subscription.initialState;
          for (const e of history) {
            acc = subscription.evolve(acc, e);
            states.push(acc);
          }
          for (const st of states) {
            if (wasCancelled) assert.ok(st.status === 'cancelled' || st.status === 'deleted', st.status);
            if (st.status === 'cancelled') wasCancelled = true;
            if (st.status === 'none' || st.status === 'deleted') continue;
            assert.ok(st.cycle >= previousCycle, 'cycle never moves backwards');
            previousCycle = st.cycle;
            if (st.pending === null) {
              assert.equal(st.nextDueDate, cycleDueDate(d.first_due_date, d.interval_months, st.cycle + 1));
            } else {
              // While a cycle is being issued, `cycle` is that cycle and the next due date is its own.
              assert.equal(st.pending.cycle, st.cycle);
              assert.equal(st.pending.dueDate, cycleDueDate(d.first_due_date, d.interval_months, st.cycle));
              assert.equal(st.nextDueDate, st.pending.dueDate);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
