import { type Kysely, sql } from 'kysely';

// Issue 13: the reconciler's per-charge backoff (src/workers/reconcile-backoff.ts). A table of its own, not
// columns of `transactions`: that table is the projection a replay truncates and rebuilds from events, and a
// failed provider read is no event of the charge. No foreign key for the same reason (the truncate would
// refuse it). Rows exist only for charges whose last attempt failed.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table reconcile_backoff (
    job text not null check (job in ('provider_read', 'pending_change')),
    transaction_id text not null,
    attempts integer not null check (attempts > 0),
    next_attempt_at timestamptz not null,
    primary key (job, transaction_id)
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table reconcile_backoff`.execute(db);
}
