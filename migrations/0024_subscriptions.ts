import { type Kysely, sql } from 'kysely';

// Issue 26 (SPEC 2.4, 2.5, 4.10): the subscriptions' and cycles' read models (src/projections/subscriptions.ts).
// `next_run_at` is when the scheduler looks at a subscription next (src/aggregates/subscription-schedule.ts):
// the due set is found by a partial index, never by a scan (issue 26 item 8), one index for the system clock
// and one per test clock. Dates are `YYYY-MM-DD` text, as `transactions.boleto_due_date` (0006). Cycles are listed newest first per subscription.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table subscriptions (
    id text primary key,
    tenant_id text not null,
    livemode boolean not null,
    status text not null check (status in ('active', 'paused', 'cancelled')),
    method text not null check (method in ('boleto', 'pix', 'pix_automatic', 'credit_card')),
    name text not null,
    customer_name text not null,
    amount integer not null check (amount > 0),
    description text not null,
    first_due_date text check (first_due_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$') not null,
    next_due_date text check (next_due_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$') not null,
    interval_months integer not null,
    advance_days integer not null,
    cycle integer not null,
    pending_cycle integer,
    pending_due_date text check (pending_due_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
    authorization_id text,
    callback_url text,
    last_error text,
    next_attempt_at timestamptz,
    cost_center_id text,
    test_clock_id text,
    next_run_at timestamptz,
    created_at timestamptz not null,
    updated_at timestamptz not null
  )`.execute(db);
  await sql`create index subscriptions_list on subscriptions (tenant_id, livemode, created_at desc, id desc)`.execute(
    db,
  );
  await sql`create index subscriptions_due on subscriptions (next_run_at)
    where next_run_at is not null and test_clock_id is null`.execute(db);
  await sql`create index subscriptions_clock_due on subscriptions (test_clock_id, next_run_at)
    where next_run_at is not null and test_clock_id is not null`.execute(db);
  await sql`create table subscription_cycles (
    id text primary key,
    subscription_id text not null,
    tenant_id text not null,
    livemode boolean not null,
    cycle integer not null,
    due_date text check (due_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$') not null,
    status text not null check (status in ('pending', 'created', 'attention', 'skipped')),
    transaction_id text,
    checkout_id text,
    error_code text,
    created_at timestamptz not null,
    updated_at timestamptz not null,
    unique (subscription_id, due_date)
  )`.execute(db);
  await sql`create index subscription_cycles_list on subscription_cycles (subscription_id, due_date desc, cycle desc)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table subscription_cycles`.execute(db);
  await sql`drop table subscriptions`.execute(db);
}
