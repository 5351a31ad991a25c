import { type Kysely, sql } from 'kysely';

// Issue 28 item 4 (SPEC 2.2 `retained_amount`, `split`, `tenant_fee_id`, `fee_starts_on`): `fee_versions` is
// the read model of every tenant's fee versions (src/projections/fee-schedules.ts); issuance reads the
// versions in force for the whole ancestor chain in one statement (tenants.ancestor_ids, index below).
// `transactions.fees` holds the fee facts fixed at reservation; null on older history (SPEC 2.2: `split`
// null, `retained_amount` 0).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table fee_versions (
    id text primary key,
    tenant_id text not null,
    method text not null check (method in ('pix', 'boleto', 'credit_card')),
    percent_bps integer not null check (percent_bps between 0 and 10000),
    fixed_amount bigint not null check (fixed_amount >= 0),
    starts_on text not null check (starts_on ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
    created_at timestamptz not null,
    unique (tenant_id, method, starts_on)
  )`.execute(db);
  await sql`alter table transactions add column fees jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table transactions drop column fees`.execute(db);
  await sql`drop table fee_versions`.execute(db);
}
