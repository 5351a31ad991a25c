import { type Kysely, sql } from 'kysely';

// Issue 22 item 4 (SPEC 4.8): how a refund returns the money (`provider`, `payout` to the payer's account, a
// person: `operator`) and the payout's transfer at the provider. The panel's queue of refunds awaiting an
// operator reads `refund_route = 'operator'`; the partial index keeps it small.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table transactions
    add column refund_route text check (refund_route in ('provider', 'payout', 'operator')),
    add column refund_transfer_id text`.execute(db);
  await sql`create index transactions_refunds_awaiting_operator on transactions (updated_at)
    where refund_route = 'operator'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index transactions_refunds_awaiting_operator`.execute(db);
  await sql`alter table transactions drop column refund_route, drop column refund_transfer_id`.execute(db);
}
