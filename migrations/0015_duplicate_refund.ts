import { type Kysely, sql } from 'kysely';

// Issue 13 item 4, SPEC 2.2: the automatic refund of the Pix of a boleto paid twice (`due`, `attempted`,
// `succeeded`, `refused`; null without a double payment), so the reconciler finds the refunds still owed.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table transactions add column duplicate_refund text`.execute(db);
  await sql`
    create index transactions_duplicate_refund_owed on transactions (updated_at)
      where duplicate_refund in ('due', 'attempted')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index transactions_duplicate_refund_owed`.execute(db);
  await sql`alter table transactions drop column duplicate_refund`.execute(db);
}
