import { type Kysely, sql } from 'kysely';

// Issue 22 item 4.2: whether a provider record lets a boleto paid by boleto be refunded by a payout through the
// provider's transfer API (`Provider.*` events' `boleto_refund_payout`). Rows written before read false.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table providers add column boleto_refund_payout boolean not null default false`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table providers drop column boleto_refund_payout`.execute(db);
}
