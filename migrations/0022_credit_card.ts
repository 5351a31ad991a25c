import { type Kysely, sql } from 'kysely';

// Issue 25 (SPEC 2.2, 2.8, 4.9): routing rules and a paid charge's `paid_with` take the card method, and a card
// charge keeps its masked card (brand, last four digits, holder, expiry, installments, Calebe's `card_…` id) for
// its Transaction view; the card number, security code and provider token never reach this table.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table routing_rules drop constraint routing_rules_method_check`.execute(db);
  await sql`alter table routing_rules add constraint routing_rules_method_check
    check (method in ('pix', 'boleto', 'credit_card'))`.execute(db);
  await sql`alter table transactions drop constraint transactions_paid_with_check`.execute(db);
  await sql`alter table transactions add constraint transactions_paid_with_check
    check (paid_with in ('pix', 'boleto', 'credit_card'))`.execute(db);
  await sql`alter table transactions add column credit_card jsonb, add column card_id text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table transactions drop column credit_card, drop column card_id`.execute(db);
  await sql`alter table transactions drop constraint transactions_paid_with_check`.execute(db);
  await sql`alter table transactions add constraint transactions_paid_with_check
    check (paid_with in ('pix', 'boleto'))`.execute(db);
  await sql`alter table routing_rules drop constraint routing_rules_method_check`.execute(db);
  await sql`alter table routing_rules add constraint routing_rules_method_check
    check (method in ('pix', 'boleto'))`.execute(db);
}
