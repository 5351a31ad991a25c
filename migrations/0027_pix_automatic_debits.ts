import { type Kysely, sql } from 'kysely';

// Issue 27 items 2-3 (SPEC 2.2, 4.11, 8): a Pix Automatic debit is a transaction that gains two facts,
// `pix_automatic_authorization_id` and `scheduled_due_date` (`YYYY-MM-DD` text, as boleto_due_date in 0006),
// null for every other charge. `pix_automatic_debit_polls` is the confirmation poller's schedule
// (src/projections/pix-automatic-debit-polls.ts): one row per debit, `next_poll_at` null once it is final or
// its 30 days of polling are over; the due set comes from a partial index, so a tick with nothing due reads
// an empty index range however many debits are stored (issue 27: under 50 ms over 1,000,000).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table transactions
    add column pix_automatic_authorization_id text,
    add column scheduled_due_date text check (scheduled_due_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$')`.execute(
    db,
  );
  await sql`create table pix_automatic_debit_polls (
    transaction_id text primary key,
    authorization_id text not null,
    tenant_id text not null,
    livemode boolean not null,
    due_date text check (due_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$') not null,
    next_poll_at timestamptz
  )`.execute(db);
  await sql`create index pix_automatic_debit_polls_due on pix_automatic_debit_polls (next_poll_at)
    where next_poll_at is not null`.execute(db);
  // SPEC 3.2 last row: the revocation guard looks for a debit of the authorization in processing or unknown.
  await sql`create index transactions_pix_automatic on transactions (pix_automatic_authorization_id, status)
    where pix_automatic_authorization_id is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index transactions_pix_automatic`.execute(db);
  await sql`drop table pix_automatic_debit_polls`.execute(db);
  await sql`alter table transactions drop column scheduled_due_date, drop column pix_automatic_authorization_id`.execute(
    db,
  );
}
