import { type Kysely, sql } from 'kysely';

// Issue 26 item 6: the test clocks' read model (src/projections/test-clocks.ts), inline so a clock created is
// read at once. Test mode only (no livemode column); listed per tenant, newest first. A deleted clock's row
// is removed (its reads are 404).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table test_clocks (
    id text primary key,
    tenant_id text not null,
    name text,
    frozen_time timestamptz not null,
    status text not null check (status in ('ready', 'advancing')),
    created_at timestamptz not null,
    updated_at timestamptz not null
  )`.execute(db);
  await sql`create index test_clocks_list on test_clocks (tenant_id, created_at desc, id desc)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table test_clocks`.execute(db);
}
