import { type Kysely, sql } from 'kysely';

// Issue 27 item 1 (SPEC 2.6, 3.2, 4.11): the Pix Automatic authorizations' read model
// (src/projections/pix-automatic-authorizations.ts), inline so a created authorization is listed at once. Listed
// per tenant and mode, newest first. `next_check_at` is when the expiry job looks at one next: a pending one's
// approval deadline (created_at + 24 h), an expired one still to be closed at the provider; the due set is
// found by a partial index, never by a scan.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table pix_automatic_authorizations (
    id text primary key,
    tenant_id text not null,
    livemode boolean not null,
    simulated boolean not null,
    status text not null check (status in
      ('processing', 'pending', 'approved', 'expired', 'cancelled', 'failed', 'unknown')),
    name text not null,
    amount integer not null check (amount > 0),
    first_due_date text check (first_due_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$') not null,
    interval_months integer not null check (interval_months in (1, 3, 6, 12)),
    provider_id text,
    provider_reference text,
    approval_deadline timestamptz not null,
    next_check_at timestamptz,
    created_at timestamptz not null,
    updated_at timestamptz not null
  )`.execute(db);
  await sql`create index pix_automatic_authorizations_list
    on pix_automatic_authorizations (tenant_id, livemode, created_at desc, id desc)`.execute(db);
  await sql`create index pix_automatic_authorizations_due on pix_automatic_authorizations (next_check_at)
    where next_check_at is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table pix_automatic_authorizations`.execute(db);
}
