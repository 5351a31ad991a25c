import { type Kysely, sql } from 'kysely';

/**
 * `summary_daily`: the per-day rollup of `summary_transactions` (docs/summary-tables.md) that lets
 * `GET /admin/summary?days=365` add up at most a few thousand rows instead of every charge of the year
 * (issue 7 B5). One row per (tenant, mode, creation day, current status).
 *
 * Kept by statement-level triggers on `summary_transactions` with transition tables: each statement of
 * the async `summary` projection (one row or a 5,000-event batch) adds its net change per group in one
 * upsert, inside the same transaction, so the rollup can never disagree with the rows it sums. Its only
 * writer is the async projection (one batch at a time under its advisory lock), never the charge path:
 * no hot row on a request (DESIGN.md "Avoid hot rows").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table summary_daily (
      tenant_id text not null,
      livemode boolean not null,
      created_day date not null,
      status text not null,
      created_count bigint not null,
      created_amount bigint not null,
      paid_count bigint not null,
      paid_amount bigint not null,
      primary key (tenant_id, livemode, created_day, status)
    )`.execute(db);
  await sql`create index summary_daily_day on summary_daily (livemode, created_day)`.execute(db);

  // `delta`: signed contributions, +1 for a row as it is now, -1 for the version of it just replaced.
  const apply = (delta: string) => `
    insert into summary_daily as d
    select tenant_id, livemode, created_day, status, sum(n), sum(amount), sum(paid_n), sum(paid_amount)
    from (${delta}) delta
    group by tenant_id, livemode, created_day, status
    having sum(n) <> 0 or sum(amount) <> 0 or sum(paid_n) <> 0 or sum(paid_amount) <> 0
    on conflict (tenant_id, livemode, created_day, status) do update set
      created_count = d.created_count + excluded.created_count,
      created_amount = d.created_amount + excluded.created_amount,
      paid_count = d.paid_count + excluded.paid_count,
      paid_amount = d.paid_amount + excluded.paid_amount;`;
  const contribution = (table: string, sign: 1 | -1) => `
    select tenant_id, livemode, created_day, status, ${sign} as n, ${sign} * amount as amount,
           case when paid_at is null then 0 else ${sign} end as paid_n,
           case when paid_at is null then 0 else ${sign} * amount end as paid_amount
    from ${table}`;

  await sql
    .raw(`
    create function summary_daily_inserted() returns trigger language plpgsql as $$
    begin
      ${apply(contribution('inserted', 1))}
      return null;
    end $$`)
    .execute(db);
  await sql
    .raw(`
    create function summary_daily_updated() returns trigger language plpgsql as $$
    begin
      ${apply(`${contribution('before_rows', -1)} union all ${contribution('after_rows', 1)}`)}
      return null;
    end $$`)
    .execute(db);
  await sql`
    create trigger summary_daily_inserted after insert on summary_transactions
    referencing new table as inserted for each statement execute function summary_daily_inserted()`.execute(
    db,
  );
  await sql`
    create trigger summary_daily_updated after update on summary_transactions
    referencing old table as before_rows new table as after_rows
    for each statement execute function summary_daily_updated()`.execute(db);

  // Existing deployments: the rollup of what is already there.
  await sql
    .raw(`insert into summary_daily
      select tenant_id, livemode, created_day, status, count(*), sum(amount),
             count(paid_at), coalesce(sum(amount) filter (where paid_at is not null), 0)
      from summary_transactions group by tenant_id, livemode, created_day, status`)
    .execute(db);
  // Fresh statistics, or the planner takes the backfilled table for empty until autovacuum comes by.
  await sql`analyze summary_daily`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger summary_daily_updated on summary_transactions`.execute(db);
  await sql`drop trigger summary_daily_inserted on summary_transactions`.execute(db);
  await sql`drop function summary_daily_updated()`.execute(db);
  await sql`drop function summary_daily_inserted()`.execute(db);
  await sql`drop table summary_daily`.execute(db);
}
