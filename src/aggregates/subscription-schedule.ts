import type {
  CycleRef,
  OpenedSubscription,
  SubscriptionMethod,
  SubscriptionState,
  SubscriptionStatus,
} from './subscription.ts';
import { addDays, issueAt, saoPauloDate } from './subscription-calendar.ts';
import type { SkipCode } from './subscription-cycle.ts';

/**
 * What the scheduler does next for one subscription (SPEC 4.10, 8; DESIGN.md "Feature modules": a pure
 * workflow decider `(subscription, now) → action`), and when it should look again: the `next_run_at` of the
 * subscriptions read model, which the scheduler's index finds due rows by.
 */

/** SPEC 8: emissions that stopped before their charge was reserved are tried again every 15 minutes. */
export const EMISSION_RETRY_MS = 15 * 60_000;

export type ScheduleAction =
  | { readonly kind: 'idle' }
  | { readonly kind: 'wait'; readonly until: Date }
  /** Begin the next cycle's emission (Subscription.CycleStarted, then its charge). */
  | { readonly kind: 'start'; readonly cycle: number; readonly dueDate: string }
  /**
   * Finish the cycle in progress: its charge may already be reserved, so it is asked for again under the same
   * key (never a second charge); `overdue` when it can no longer be issued should it not be.
   */
  | { readonly kind: 'continue'; readonly cycle: number; readonly dueDate: string; readonly overdue: boolean }
  /** The next cycle can no longer be issued: skipped with `code`, no charge (SPEC 3.3, 3.4). */
  | { readonly kind: 'skip'; readonly cycle: number; readonly dueDate: string; readonly code: SkipCode };

/**
 * The last business day a cycle due on `dueDate` can be issued: a boleto, a Pix link and a card up to the due
 * day itself; a Pix Automatic debit at least 2 days before it (SPEC 4.11).
 */
export function lastIssueDate(method: SubscriptionMethod, dueDate: string): string {
  return method === 'pix_automatic' ? addDays(dueDate, -2) : dueDate;
}

/**
 * SPEC 4.11: a Pix Automatic subscription's first debit is scheduled from 10 days before the first due date
 * (later ones `advance_days` before theirs), and only while at least 2 days remain.
 */
export const AUTOMATIC_FIRST_LEAD_DAYS = 10;

/**
 * The code of a cycle started but never reserved that can no longer be issued (its emission kept failing,
 * e.g. while the payer had not approved): a debit's 2-day window closed (SPEC 2.5), else `cycle_overdue`.
 */
export function overdueCode(method: SubscriptionMethod): SkipCode {
  return method === 'pix_automatic' ? 'automatic_schedule_window' : 'cycle_overdue';
}

/** The due date has passed for issuance at `now` (Brasilia business date). */
export function isOverdue(method: SubscriptionMethod, dueDate: string, now: Date): boolean {
  return saoPauloDate(now) > lastIssueDate(method, dueDate);
}

/**
 * When the scheduler should look at the subscription next, whatever the time now: the next cycle's issue
 * moment (`next_due_date − advance_days`, a card on the due day itself), or the retry of a failed emission;
 * at once (the epoch) for a cycle in progress; never (null) when paused, cancelled or deleted.
 */
export function nextRunAt(s: ScheduleView): Date | null {
  const retry = s.nextAttemptAt === null ? null : new Date(s.nextAttemptAt);
  if (s.pending !== null) return retry ?? new Date(0);
  if (s.status !== 'active') return null;
  const lead = s.method === 'pix_automatic' && s.cycle === 0 ? AUTOMATIC_FIRST_LEAD_DAYS : s.advanceDays;
  const issue = issueAt(s.nextDueDate, lead);
  return retry !== null && retry > issue ? retry : issue;
}

/** What the schedule reads of a subscription (the read model keeps these columns). */
export interface ScheduleView {
  readonly status: SubscriptionStatus;
  readonly pending: CycleRef | null;
  readonly nextAttemptAt: string | null;
  readonly nextDueDate: string;
  readonly advanceDays: number;
  readonly method: SubscriptionMethod;
  /** The last cycle started (0 before the first). */
  readonly cycle: number;
}

export function scheduleView(state: OpenedSubscription): ScheduleView {
  return { ...state, advanceDays: state.created.advance_days, method: state.created.method };
}

export function nextAction(state: SubscriptionState, now: Date): ScheduleAction {
  if (state.status === 'none' || state.status === 'deleted') return { kind: 'idle' };
  const method = state.created.method;
  if (state.pending !== null) {
    const { cycle, dueDate } = state.pending;
    const retry = state.nextAttemptAt === null ? null : new Date(state.nextAttemptAt);
    if (retry !== null && now < retry && !isOverdue(method, dueDate, now))
      return { kind: 'wait', until: retry };
    return { kind: 'continue', cycle, dueDate, overdue: isOverdue(method, dueDate, now) };
  }
  if (state.status !== 'active') return { kind: 'idle' };
  const cycle = state.cycle + 1;
  const dueDate = state.nextDueDate;
  // Never started, so it fell due while paused (or the scheduler was down): SPEC 3.3 `cycle_overdue`.
  if (isOverdue(method, dueDate, now)) return { kind: 'skip', cycle, dueDate, code: 'cycle_overdue' };
  const at = nextRunAt(scheduleView(state)) as Date;
  if (now < at) return { kind: 'wait', until: at };
  return { kind: 'start', cycle, dueDate };
}

/**
 * The first look, at creation (SPEC 3.3, 4.10): cycle 1 is issued at once, without waiting for
 * `advance_days`, except a card's, which is debited on its due day (a card whose first due date is in the
 * future was only registered: cycle 0), and a Pix Automatic debit's, scheduled from 10 days before its due
 * date (SPEC 4.11).
 */
export function firstAction(state: SubscriptionState, now: Date): ScheduleAction {
  const next = nextAction(state, now);
  if (state.status !== 'active' || state.cycle !== 0 || state.pending !== null) return next;
  const method = state.created.method;
  if (method === 'credit_card' || method === 'pix_automatic' || next.kind !== 'wait') return next;
  return { kind: 'start', cycle: 1, dueDate: state.nextDueDate };
}
