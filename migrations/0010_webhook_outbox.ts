import { type Kysely, sql } from 'kysely';

// The webhook outbox (SPEC 6; src/projections/webhook-outbox.ts, src/workers/webhook-delivery.ts).
// Messages and deliveries are written by a projection in the append's transaction (PostgreSQL store), so no
// event can commit without its deliveries. Delivery progress and attempts are operational records of the
// worker, not business facts, so they live here and not in the event log (docs/decisions.md "Webhooks").
export async function up(db: Kysely<unknown>): Promise<void> {
  // The outbox's own fold of each charge: what a message needs (status before, destinations' keys).
  await sql`
    create table webhook_charge_states (
      transaction_id text primary key,
      tenant_id text not null,
      livemode boolean not null,
      callback_url text,
      status text not null,
      sequence bigint not null
    )`.execute(db);
  await sql`
    create table webhook_messages (
      id text primary key,
      event_id uuid not null unique,
      type text not null check (type in ('transaction.created', 'transaction.updated')),
      tenant_id text not null,
      livemode boolean not null,
      transaction_id text not null,
      sequence bigint not null,
      status text not null,
      previous_status text,
      occurred_at timestamptz not null,
      -- The charge's read-model row at this version, when the projection saw it (inline); else the worker
      -- folds the stream up to sequence.
      snapshot jsonb,
      -- Rendered once, at the first attempt, and then frozen: every retry sends the same bytes.
      body text
    )`.execute(db);
  await sql`
    create table webhook_deliveries (
      id text primary key,
      message_id text not null,
      tenant_id text not null,
      transaction_id text not null,
      destination text not null check (destination in ('endpoint', 'callback')),
      endpoint_id text,
      callback_url text,
      status text not null check (status in ('pending', 'delivered', 'failed', 'cancelled')),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null,
      locked_until timestamptz,
      last_attempt_at timestamptz,
      last_status_code integer,
      last_error text,
      delivered_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      check ((destination = 'endpoint') = (endpoint_id is not null)),
      check ((destination = 'callback') = (callback_url is not null))
    )`.execute(db);
  await sql`
    create index webhook_deliveries_due on webhook_deliveries (next_attempt_at)
      where status = 'pending'`.execute(db);
  await sql`create index webhook_deliveries_tenant on webhook_deliveries (tenant_id, created_at desc, id)`.execute(
    db,
  );
  await sql`create index webhook_deliveries_transaction on webhook_deliveries (transaction_id)`.execute(db);
  await sql`create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, created_at desc)`.execute(
    db,
  );
  await sql`
    create table webhook_attempts (
      id bigserial primary key,
      delivery_id text not null,
      attempt integer not null,
      started_at timestamptz not null,
      duration_ms integer not null,
      outcome text not null check (outcome in ('delivered', 'failed', 'gone', 'refused')),
      status_code integer,
      error text
    )`.execute(db);
  await sql`create index webhook_attempts_delivery on webhook_attempts (delivery_id, attempt)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table webhook_attempts, webhook_deliveries, webhook_messages, webhook_charge_states`.execute(
    db,
  );
}
