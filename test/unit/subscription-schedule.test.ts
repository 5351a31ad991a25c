import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { DomainError, fold } from '../../src/aggregates/decider.ts';
import {
  type SubscriptionCommand,
  type SubscriptionCreatedData,
  type SubscriptionEvent,
  type SubscriptionMethod,
  type SubscriptionState,
  subscription,
} from '../../src/aggregates/subscription.ts';
import { addDays, issueAt, saoPauloDate, startOfDay } from '../../src/aggregates/subscription-calendar.ts';
import {
  AUTOMATIC_FIRST_LEAD_DAYS,
  EMISSION_RETRY_MS,
  firstAction,
  nextAction,
  nextRunAt,
  overdueCode,
  scheduleView,
} from '../../src/aggregates/subscription-schedule.ts';
import { subscriptionData } from '../support/subscriptions.ts';

/**
 * The scheduler's pure next action (SPEC 4.10, 8; DESIGN.md "Feature modules"): cases by hand, then a
 * scheduler simulated in memory (the subscription decider folded, emissions that succeed, fail before their
 * reservation or crash) over random timelines with pauses: each due date issued at most once, never before
 * its issue moment, skipped only when overdue.
 */

const S = 'sub_a';
function createdData(over: Partial<SubscriptionCreatedData> = {}): SubscriptionCreatedData {
  return subscriptionData({ first_due_date: '2026-03-10', advance_days: 5, name: 'Plano', ...over });
}
const created = (over: Partial<SubscriptionCreatedData> = {}): SubscriptionEvent => ({
  type: 'Subscription.Created',
  data: createdData(over),
});
const started = (cycle: number, due_date: string): SubscriptionEvent => ({
  type: 'Subscription.CycleStarted',
  data: { subscription_id: S, cycle, due_date },
});
const failed = (cycle: number, due_date: string, next_attempt_at: string): SubscriptionEvent => ({
  type: 'Subscription.EmissionFailed',
  data: { subscription_id: S, cycle, due_date, reason: 'live_payments_disabled', next_attempt_at },
});
const settled = (cycle: number, due_date: string): SubscriptionEvent => ({
  type: 'Subscription.CycleSettled',
  data: { subscription_id: S, cycle, due_date, outcome: 'created' },
});
const paused: SubscriptionEvent = { type: 'Subscription.Paused', data: { subscription_id: S } };
const cancelled: SubscriptionEvent = {
  type: 'Subscription.Cancelled',
  data: { subscription_id: S, reason: null },
};
const state = (events: SubscriptionEvent[]) => fold(subscription, events);
/** An instant in Brasilia time (UTC-3): `2026-03-05 00:00` is 03:00Z. */
const br = (date: string, time = '00:00') => new Date(`${date}T${time}:00.000-03:00`);

describe('nextAction by hand', () => {
  test('no subscription (or deleted): idle', () => {
    assert.deepEqual(nextAction({ status: 'none' }, br('2026-03-05')), { kind: 'idle' });
    assert.deepEqual(nextAction({ status: 'deleted' }, br('2026-03-05')), { kind: 'idle' });
  });
  test('before the issue moment (due date − advance_days, 00:00 in Brasilia): wait until it', () => {
    const s = state([created()]);
    assert.deepEqual(nextAction(s, br('2026-03-04', '23:59')), { kind: 'wait', until: br('2026-03-05') });
  });
  test('at the issue moment and until the end of the due day: start the next cycle', () => {
    const s = state([created()]);
    const start = { kind: 'start', cycle: 1, dueDate: '2026-03-10' };
    assert.deepEqual(nextAction(s, br('2026-03-05')), start);
    assert.deepEqual(nextAction(s, br('2026-03-10', '23:59')), start);
  });
  test('the first cycle does not wait for advance_days when the due date is near (SPEC 4.10)', () => {
    const s = state([created({ first_due_date: '2026-03-06', advance_days: 30 })]);
    assert.deepEqual(nextAction(s, br('2026-03-01', '10:00')), {
      kind: 'start',
      cycle: 1,
      dueDate: '2026-03-06',
    });
  });
  test('after the due day: skip with cycle_overdue, no charge', () => {
    const s = state([created()]);
    assert.deepEqual(nextAction(s, br('2026-03-11')), {
      kind: 'skip',
      cycle: 1,
      dueDate: '2026-03-10',
      code: 'cycle_overdue',
    });
  });
  test('a card cycle is issued on its due day, not before (advance 0)', () => {
    const s = state([created({ method: 'credit_card', advance_days: 0 })]);
    assert.deepEqual(nextAction(s, br('2026-03-09', '23:59')), { kind: 'wait', until: br('2026-03-10') });
    assert.deepEqual(nextAction(s, br('2026-03-10')), { kind: 'start', cycle: 1, dueDate: '2026-03-10' });
  });
  test('a cycle in progress continues (a crashed emission resumes), overdue or not', () => {
    const s = state([created(), started(1, '2026-03-10')]);
    assert.deepEqual(nextAction(s, br('2026-03-06')), {
      kind: 'continue',
      cycle: 1,
      dueDate: '2026-03-10',
      overdue: false,
    });
    assert.deepEqual(nextAction(s, br('2026-03-11')), {
      kind: 'continue',
      cycle: 1,
      dueDate: '2026-03-10',
      overdue: true,
    });
  });
  test('a failed emission waits 15 minutes, then continues; past the due day it continues at once', () => {
    const at = br('2026-03-06', '10:00');
    const retry = new Date(at.getTime() + EMISSION_RETRY_MS);
    assert.equal(EMISSION_RETRY_MS, 15 * 60_000);
    const s = state([created(), started(1, '2026-03-10'), failed(1, '2026-03-10', retry.toISOString())]);
    assert.deepEqual(nextAction(s, new Date(retry.getTime() - 1)), { kind: 'wait', until: retry });
    assert.deepEqual(nextAction(s, retry), {
      kind: 'continue',
      cycle: 1,
      dueDate: '2026-03-10',
      overdue: false,
    });
    const late = state([
      created(),
      started(1, '2026-03-10'),
      failed(1, '2026-03-10', br('2026-03-11', '00:10').toISOString()),
    ]);
    assert.deepEqual(nextAction(late, br('2026-03-11', '00:01')), {
      kind: 'continue',
      cycle: 1,
      dueDate: '2026-03-10',
      overdue: true,
    });
  });
  test('paused or cancelled: idle; but an emission in progress finishes (SPEC 3.3)', () => {
    assert.deepEqual(nextAction(state([created(), paused]), br('2026-03-06')), { kind: 'idle' });
    assert.deepEqual(nextAction(state([created(), cancelled]), br('2026-03-06')), { kind: 'idle' });
    assert.equal(
      nextAction(state([created(), started(1, '2026-03-10'), paused]), br('2026-03-06')).kind,
      'continue',
    );
    assert.equal(
      nextAction(state([created(), started(1, '2026-03-10'), cancelled]), br('2026-03-06')).kind,
      'continue',
    );
  });
  test('after a settled cycle: wait for the next due date − advance_days', () => {
    const s = state([created(), started(1, '2026-03-10'), settled(1, '2026-03-10')]);
    assert.deepEqual(nextAction(s, br('2026-03-10', '12:00')), { kind: 'wait', until: br('2026-04-05') });
  });
  test('Pix Automatic (SPEC 4.11): the first debit from 10 days before its due date, later ones advance_days before; never under 2 days', () => {
    const s = state([created({ method: 'pix_automatic', advance_days: 4, authorization_id: 'pxa_a' })]);
    assert.deepEqual(nextAction(s, br('2026-02-27', '23:59')), { kind: 'wait', until: br('2026-02-28') });
    assert.deepEqual(nextAction(s, br('2026-02-28')), { kind: 'start', cycle: 1, dueDate: '2026-03-10' });
    assert.deepEqual(firstAction(s, br('2026-02-20')), { kind: 'wait', until: br('2026-02-28') });
    assert.deepEqual(nextAction(s, br('2026-03-08', '23:59')), {
      kind: 'start',
      cycle: 1,
      dueDate: '2026-03-10',
    });
    assert.deepEqual(nextAction(s, br('2026-03-09')), {
      kind: 'skip',
      cycle: 1,
      dueDate: '2026-03-10',
      code: 'cycle_overdue',
    });
    assert.equal(overdueCode('pix_automatic'), 'automatic_schedule_window');
    assert.equal(overdueCode('boleto'), 'cycle_overdue');
    const later = state([
      created({ method: 'pix_automatic', advance_days: 4, authorization_id: 'pxa_a' }),
      started(1, '2026-03-10'),
      settled(1, '2026-03-10'),
    ]);
    assert.deepEqual(nextAction(later, br('2026-04-05', '23:59')), { kind: 'wait', until: br('2026-04-06') });
    assert.deepEqual(nextAction(later, br('2026-04-06')), { kind: 'start', cycle: 2, dueDate: '2026-04-10' });
  });
  test('nextRunAt: the issue moment; the later retry; at once for a cycle in progress; never when not active', () => {
    const fresh = state([created()]) as Exclude<SubscriptionState, { status: 'none' | 'deleted' }>;
    assert.deepEqual(nextRunAt(scheduleView(fresh)), br('2026-03-05'));
    const inProgress = state([created(), started(1, '2026-03-10')]) as typeof fresh;
    assert.deepEqual(nextRunAt(scheduleView(inProgress)), new Date(0));
    const retry = '2026-03-06T13:15:00.000Z';
    const failedOnce = state([
      created(),
      started(1, '2026-03-10'),
      failed(1, '2026-03-10', retry),
    ]) as typeof fresh;
    assert.deepEqual(nextRunAt(scheduleView(failedOnce)), new Date(retry));
    assert.equal(nextRunAt(scheduleView(state([created(), paused]) as typeof fresh)), null);
    assert.equal(nextRunAt(scheduleView(state([created(), cancelled]) as typeof fresh)), null);
  });
});

describe('a scheduler simulated over random timelines (property)', () => {
  type Outcome = 'issued' | 'fails' | 'crash_before' | 'crash_after';
  const ADVANCE: Record<SubscriptionMethod, [number, number]> = {
    boleto: [0, 30],
    pix: [0, 30],
    credit_card: [0, 0],
    pix_automatic: [2, 10],
  };
  const plan = fc
    .record({
      method: fc.constantFrom<SubscriptionMethod>('boleto', 'pix', 'credit_card', 'pix_automatic'),
      advance: fc.integer({ min: 0, max: 30 }),
      interval: fc.integer({ min: 1, max: 12 }),
      firstInDays: fc.integer({ min: 0, max: 60 }),
      day: fc.integer({ min: 0, max: 30 }),
      ticks: fc.array(
        fc.record({
          /** Minutes to the next scheduler run: a minute, hours, or up to 20 days (a test clock jumps). */
          gap: fc.oneof(
            fc.integer({ min: 1, max: 30 }),
            fc.integer({ min: 60, max: 2_880 }),
            fc.integer({ min: 2_880, max: 28_800 }),
          ),
          toggle: fc.integer({ min: 0, max: 9 }),
          outcomes: fc.array(
            fc.constantFrom<Outcome>('issued', 'issued', 'fails', 'crash_before', 'crash_after'),
            {
              minLength: 8,
              maxLength: 8,
            },
          ),
        }),
        { minLength: 20, maxLength: 80 },
      ),
    })
    .map((p) => {
      const [min, max] = ADVANCE[p.method];
      return { ...p, advance: min + (p.advance % (max - min + 1)) };
    });

  test('each due date issued at most once, never before its issue moment; skipped only when overdue', () => {
    fc.assert(
      fc.property(plan, (p) => {
        let now = new Date(Date.UTC(2026, 0, 1, 12) + p.day * 86_400_000);
        const first = addDays(saoPauloDate(now), p.firstInDays + (p.method === 'pix_automatic' ? 2 : 0));
        const data = createdData({
          method: p.method,
          advance_days: p.advance,
          interval_months: p.interval,
          first_due_date: first,
          authorization_id: p.method === 'pix_automatic' ? 'pxa_a' : null,
        });
        const history: SubscriptionEvent[] = [{ type: 'Subscription.Created', data }];
        const apply = (command: SubscriptionCommand) => {
          const decision = subscription.decide(command, fold(subscription, history), { now });
          assert.ok(
            !(decision instanceof DomainError),
            `${command.kind}: ${(decision as DomainError).message}`,
          );
          history.push(...decision);
        };
        /** The charges: the money-once record under each cycle's key (a repeat finds it, never a second). */
        const charges = new Map<string, Date>();
        const skipped = new Set<string>();
        const lastIssueDay = (due: string) => (p.method === 'pix_automatic' ? addDays(due, -2) : due);
        const overdue = (due: string) => now >= startOfDay(addDays(lastIssueDay(due), 1));

        const emit = (cycle: number, dueDate: string, outcome: Outcome): boolean => {
          if (charges.has(dueDate)) {
            // Asked again under the same key: the existing charge answers; the cycle settles.
            apply({ kind: 'settle_cycle', cycle, dueDate, outcome: 'created' });
            return true;
          }
          if (overdue(dueDate)) {
            // Never reserved and can no longer be issued.
            assert.ok(!charges.has(dueDate));
            skipped.add(dueDate);
            apply({ kind: 'settle_cycle', cycle, dueDate, outcome: 'skipped' });
            return true;
          }
          switch (outcome) {
            case 'issued':
              charges.set(dueDate, now);
              apply({ kind: 'settle_cycle', cycle, dueDate, outcome: 'created' });
              return true;
            case 'fails':
              apply({
                kind: 'emission_failed',
                cycle,
                dueDate,
                reason: 'live_payments_disabled',
                nextAttemptAt: new Date(now.getTime() + EMISSION_RETRY_MS).toISOString(),
              });
              return true;
            case 'crash_before':
              return false;
            case 'crash_after':
              charges.set(dueDate, now);
              return false;
          }
        };

        for (const tick of p.ticks) {
          now = new Date(now.getTime() + tick.gap * 60_000);
          const s = fold(subscription, history);
          if (s.status === 'active' && tick.toggle === 0) apply({ kind: 'pause' });
          else if (s.status === 'paused' && tick.toggle <= 3) {
            apply({ kind: 'resume', automaticAvailable: true });
          }
          // One scheduler run: act until it waits, idles or its worker crashes.
          for (const outcome of tick.outcomes) {
            const before = fold(subscription, history);
            const action = nextAction(before, now);
            if (action.kind === 'idle' || action.kind === 'wait') {
              if (action.kind === 'wait') assert.ok(action.until > now, 'a wait is for a later moment');
              break;
            }
            assert.ok(before.status !== 'none' && before.status !== 'deleted');
            if (action.kind === 'skip') {
              assert.ok(
                overdue(action.dueDate),
                `${action.dueDate} skipped at ${now.toISOString()}: not overdue`,
              );
              assert.ok(!charges.has(action.dueDate), 'an issued cycle is never skipped');
              skipped.add(action.dueDate);
              apply({
                kind: 'settle_cycle',
                cycle: action.cycle,
                dueDate: action.dueDate,
                outcome: 'skipped',
              });
              continue;
            }
            if (action.kind === 'start') {
              assert.equal(before.status, 'active', 'only an active subscription starts a cycle');
              assert.ok(
                !charges.has(action.dueDate) && !skipped.has(action.dueDate),
                'a due date starts once',
              );
              apply({ kind: 'start_cycle', cycle: action.cycle, dueDate: action.dueDate });
            }
            if (!emit(action.cycle, action.dueDate, outcome)) break;
          }
        }
        for (const [due, at] of charges) {
          const lead = p.method === 'pix_automatic' && due === first ? AUTOMATIC_FIRST_LEAD_DAYS : p.advance;
          assert.ok(
            at >= issueAt(due, lead),
            `${due} issued at ${at.toISOString()}: before its issue moment`,
          );
          assert.ok(!skipped.has(due), `${due} both issued and skipped`);
        }
        // Each due date settled at most once, in calendar order.
        const settledDates = history.flatMap((e) =>
          e.type === 'Subscription.CycleSettled' ? [e.data.due_date] : [],
        );
        assert.equal(new Set(settledDates).size, settledDates.length);
        assert.deepEqual([...settledDates].sort(), settledDates);
      }),
      { numRuns: 400 },
    );
  });
});
