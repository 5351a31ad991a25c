import { type Kysely, sql } from 'kysely';

// Issue 28 item 2: the subaccount reconciliation job's per-record schedule (src/commands/subaccounts/reconcile/
// job.ts). Like `reconcile_backoff` (0017), a table of its own, not columns of `subaccounts`: that read model
// is truncated and rebuilt from events by a replay, and a consult that found nothing is no event of the
// record. No foreign key for the same reason. A row exists only for a record the job has consulted and not
// yet seen settled: `attempts` consults so far, the next one not before `next_attempt_at`.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table subaccount_reconcile (
    subaccount_id text primary key,
    attempts integer not null check (attempts > 0),
    next_attempt_at timestamptz not null
  )`.execute(db);
  // The job's candidates: uncertain records, oldest first (the read model has no such index yet).
  await sql`create index subaccounts_uncertain on subaccounts (created_at, id)
    where status in ('creating', 'unknown')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index subaccounts_uncertain`.execute(db);
  await sql`drop table subaccount_reconcile`.execute(db);
}
