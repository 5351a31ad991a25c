import { type Kysely, sql } from 'kysely';

// Issue 25 (SPEC 2.7, 3.5, 4.9): the hosted checkouts' read model (src/projections/checkouts.ts): the list's
// filters (mode, tenant, reference, newest first) and the follower's schedule (`next_check_at`: due checkouts
// claimed with FOR UPDATE SKIP LOCKED). `created` is the creation's facts without the payer's phone and address.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table checkouts (
    id text primary key,
    tenant_id text not null,
    livemode boolean not null,
    status text not null check (status in ('open', 'processing', 'completed', 'failed', 'expired')),
    reference text not null,
    created jsonb not null,
    transaction_ids text[] not null default '{}',
    pending_ids text[] not null default '{}',
    paid_transaction_id text,
    late_payments text[] not null default '{}',
    cost_center_id text,
    expires_at timestamptz not null,
    next_check_at timestamptz,
    created_at timestamptz not null,
    updated_at timestamptz not null
  )`.execute(db);
  await sql`create index checkouts_list on checkouts (tenant_id, livemode, created_at desc, id desc)`.execute(
    db,
  );
  await sql`create index checkouts_reference on checkouts (tenant_id, reference)`.execute(db);
  await sql`create index checkouts_due on checkouts (next_check_at) where next_check_at is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table checkouts`.execute(db);
}
