import { type Kysely, sql } from 'kysely';

/**
 * `summary_transactions`: one row per charge, for `GET /admin/summary` and for analysts who query it with
 * SQL (docs/summary-tables.md). Written by the async `summary` projection; no per-tenant daily counters
 * (hot rows, DESIGN.md "Projections"): totals and daily series are aggregated at query time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table summary_transactions (
      transaction_id text primary key,
      tenant_id text not null,
      livemode boolean not null,
      simulated boolean not null,
      method text not null,
      amount bigint not null,
      status text not null,
      created_at timestamptz not null,
      created_day date not null,
      paid_at timestamptz,
      paid_day date,
      updated_at timestamptz not null,
      sequence bigint not null
    )`.execute(db);
  await sql`create index summary_transactions_tenant on summary_transactions (tenant_id, livemode, created_at)`.execute(
    db,
  );
  await sql`create index summary_transactions_created on summary_transactions (livemode, created_at)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table summary_transactions`.execute(db);
}
