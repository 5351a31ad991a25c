import { type Kysely, sql } from 'kysely';

// Issue 13 item 8 (SPEC 4.8): a due-date change whose provider answer was uncertain waits here for a later
// call or the reconciler to settle it (src/workers/settle-pending-changes.ts). `YYYY-MM-DD` text, like
// `boleto_due_date`. The partial index keeps the reconciler's scan of pending changes small; pending
// refunds are found by `refund_status = 'pending'`.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table transactions add column pending_due_date text
    check (pending_due_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$')`.execute(db);
  await sql`create index transactions_pending_changes on transactions (updated_at)
    where pending_due_date is not null or refund_status = 'pending'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index transactions_pending_changes`.execute(db);
  await sql`alter table transactions drop column pending_due_date`.execute(db);
}
