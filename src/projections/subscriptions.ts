import { type ColumnType, sql, type Transaction } from 'kysely';
import type { SubscriptionMethod, SubscriptionStatus } from '../aggregates/subscription.ts';
import { dueDateAfter, type SubscriptionEvent, subscriptionEvents } from '../aggregates/subscription.ts';
import { type CycleEvent, type CycleStatus, cycleEvents } from '../aggregates/subscription-cycle.ts';
import { nextRunAt, type ScheduleView } from '../aggregates/subscription-schedule.ts';
import type { Database } from '../db/schema.ts';
import { EventRegistry } from '../events/event-registry.ts';
import type { Projection } from '../events/projection.ts';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null, Date | string | null>;

/** The `subscriptions` read model (migrations/0024_subscriptions.ts): SPEC 2.4 plus the scheduler's columns. */
export interface SubscriptionsTable {
  id: string;
  tenant_id: string;
  livemode: boolean;
  status: SubscriptionStatus;
  method: SubscriptionMethod;
  name: string;
  customer_name: string;
  amount: number;
  description: string;
  first_due_date: string;
  next_due_date: string;
  interval_months: number;
  advance_days: number;
  cycle: number;
  pending_cycle: number | null;
  pending_due_date: string | null;
  authorization_id: string | null;
  callback_url: string | null;
  last_error: string | null;
  next_attempt_at: NullableTimestamp;
  cost_center_id: string | null;
  test_clock_id: string | null;
  /** When the scheduler looks at it next (src/aggregates/subscription-schedule.ts `nextRunAt`); null: never. */
  next_run_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The `subscription_cycles` read model: SPEC 2.5 without the charge's live status (read at query time). */
export interface SubscriptionCyclesTable {
  id: string;
  subscription_id: string;
  tenant_id: string;
  livemode: boolean;
  cycle: number;
  due_date: string;
  status: CycleStatus;
  transaction_id: string | null;
  checkout_id: string | null;
  error_code: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../db/schema.ts' {
  interface Database {
    subscriptions: SubscriptionsTable;
    subscription_cycles: SubscriptionCyclesTable;
  }
}

const subscriptionRegistry = new EventRegistry(subscriptionEvents);
const cycleRegistry = new EventRegistry(cycleEvents);

/** The columns a subscription's schedule is computed from (its business dates are `YYYY-MM-DD` text). */
interface Row {
  status: SubscriptionStatus;
  method: SubscriptionMethod;
  first_due_date: string;
  interval_months: number;
  advance_days: number;
  cycle: number;
  next_due_date: string;
  last_error: string | null;
  pending_cycle: number | null;
  pending_due_date: string | null;
  next_attempt_at: Date | null;
}

/** The row's changed columns after `event`, with its `next_run_at` from the schedule's own rule. */
function applied(
  row: Row,
  event: Exclude<SubscriptionEvent, { type: 'Subscription.Created' }>,
): Partial<Row> {
  switch (event.type) {
    case 'Subscription.CardRegistered':
    case 'Subscription.CostCenterChanged':
    case 'Subscription.Deleted':
      return {};
    case 'Subscription.Paused':
      return { status: 'paused' };
    case 'Subscription.Resumed':
      return { status: 'active', last_error: null, next_attempt_at: null };
    case 'Subscription.Cancelled':
      return { status: 'cancelled' };
    case 'Subscription.CycleStarted':
      return {
        cycle: event.data.cycle,
        pending_cycle: event.data.cycle,
        pending_due_date: event.data.due_date,
      };
    case 'Subscription.EmissionFailed':
      return { last_error: event.data.reason, next_attempt_at: new Date(event.data.next_attempt_at) };
    case 'Subscription.AttemptBroughtForward':
      return { next_attempt_at: new Date(event.data.next_attempt_at) };
    case 'Subscription.CycleSettled':
      return {
        cycle: event.data.cycle,
        next_due_date: dueDateAfter(
          { first_due_date: row.first_due_date, interval_months: row.interval_months },
          event.data.cycle,
        ),
        pending_cycle: null,
        pending_due_date: null,
        last_error: null,
        next_attempt_at: null,
      };
  }
}

function runAt(row: Row): Date | null {
  const view: ScheduleView = {
    status: row.status,
    pending:
      row.pending_cycle === null || row.pending_due_date === null
        ? null
        : { cycle: row.pending_cycle, dueDate: row.pending_due_date },
    nextAttemptAt: row.next_attempt_at === null ? null : row.next_attempt_at.toISOString(),
    nextDueDate: row.next_due_date,
    advanceDays: row.advance_days,
    method: row.method,
    cycle: row.cycle,
  };
  return nextRunAt(view);
}

async function applySubscription(
  event: SubscriptionEvent,
  at: Date,
  trx: Transaction<Database>,
): Promise<void> {
  const id = event.data.subscription_id;
  if (event.type === 'Subscription.Created') {
    const d = event.data;
    const row: Row = {
      status: 'active',
      method: d.method,
      first_due_date: d.first_due_date,
      interval_months: d.interval_months,
      advance_days: d.advance_days,
      cycle: 0,
      next_due_date: d.first_due_date,
      last_error: null,
      pending_cycle: null,
      pending_due_date: null,
      next_attempt_at: null,
    };
    await trx
      .insertInto('subscriptions')
      .values({
        id,
        tenant_id: d.tenant_id,
        livemode: d.livemode,
        name: d.name,
        customer_name: d.customer.name,
        amount: d.amount,
        description: d.description,
        authorization_id: d.authorization_id,
        callback_url: d.callback_url,
        cost_center_id: d.cost_center_id,
        test_clock_id: d.test_clock_id,
        ...row,
        next_run_at: runAt(row),
        created_at: at,
        updated_at: at,
      })
      .execute();
    return;
  }
  if (event.type === 'Subscription.Deleted') {
    await trx.deleteFrom('subscription_cycles').where('subscription_id', '=', id).execute();
    await trx.deleteFrom('subscriptions').where('id', '=', id).execute();
    return;
  }
  const row = await trx
    .selectFrom('subscriptions')
    .select([
      'status',
      'method',
      'first_due_date',
      'interval_months',
      'advance_days',
      'cycle',
      'next_due_date',
      'last_error',
      'pending_cycle',
      'pending_due_date',
      'next_attempt_at',
    ])
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (!row) return;
  const changed = { ...applied(row, event) };
  const next = { ...row, ...changed };
  await trx
    .updateTable('subscriptions')
    .set({
      ...changed,
      ...(event.type === 'Subscription.CostCenterChanged'
        ? { cost_center_id: event.data.cost_center_id }
        : {}),
      next_run_at: runAt(next),
      updated_at: at,
    })
    .where('id', '=', id)
    .execute();
}

async function applyCycle(event: CycleEvent, at: Date, trx: Transaction<Database>): Promise<void> {
  switch (event.type) {
    case 'Cycle.Reserved':
    case 'Cycle.Skipped': {
      const d = event.data;
      const status = event.type === 'Cycle.Reserved' ? 'pending' : 'skipped';
      const errorCode = event.type === 'Cycle.Skipped' ? event.data.error_code : null;
      await trx
        .insertInto('subscription_cycles')
        .values({
          id: d.cycle_id,
          subscription_id: d.subscription_id,
          tenant_id: d.tenant_id,
          livemode: d.livemode,
          cycle: d.cycle,
          due_date: d.due_date,
          status,
          error_code: errorCode,
          created_at: at,
          updated_at: at,
        })
        .onConflict((oc) => oc.column('id').doUpdateSet({ status, error_code: errorCode, updated_at: at }))
        .execute();
      return;
    }
    case 'Cycle.Issued':
    case 'Cycle.AttentionNeeded':
      await trx
        .updateTable('subscription_cycles')
        .set({
          transaction_id: event.data.transaction_id,
          ...(event.type === 'Cycle.Issued'
            ? { status: 'created', checkout_id: event.data.checkout_id }
            : { status: 'attention', error_code: event.data.error_code }),
          updated_at: at,
        })
        .where('id', '=', event.data.cycle_id)
        .execute();
      return;
  }
}

/**
 * Subscriptions as lists read them (SPEC 4.10) and as the scheduler claims them (`next_run_at`). Inline, so a
 * created subscription is listed at once and a status change is seen by the next tick. Times are the events'
 * recorded times, so a rebuild reproduces them.
 */
export const subscriptionsProjection: Projection = {
  name: 'subscriptions',
  eventTypes: subscriptionEvents.map((e) => e.type),
  async handle(recorded, trx) {
    await applySubscription(
      subscriptionRegistry.decode(recorded) as SubscriptionEvent,
      recorded.recordedAt,
      trx,
    );
  },
  async reset(trx) {
    await sql`truncate subscriptions`.execute(trx);
  },
};

/**
 * The cycles of each subscription (SPEC 2.5), newest first by due date. A deleted subscription's cycles are
 * removed by the subscriptions projection; a cycle event of a deleted subscription (a late emission) is
 * dropped here so it never reappears.
 */
export const subscriptionCyclesProjection: Projection = {
  name: 'subscription_cycles',
  eventTypes: cycleEvents.map((e) => e.type),
  after: ['subscriptions'],
  async handle(recorded, trx) {
    const event = cycleRegistry.decode(recorded) as CycleEvent;
    if (event.type === 'Cycle.Reserved' || event.type === 'Cycle.Skipped') {
      const alive = await trx
        .selectFrom('subscriptions')
        .select('id')
        .where('id', '=', event.data.subscription_id)
        .executeTakeFirst();
      if (!alive) return;
    }
    await applyCycle(event, recorded.recordedAt, trx);
  },
  async reset(trx) {
    await sql`truncate subscription_cycles`.execute(trx);
  },
};
