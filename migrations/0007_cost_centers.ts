import { type Kysely, sql } from 'kysely';

// Inline read model of cost centers (SPEC 4.12): lists filter by tenant and `active`; reads of charges show
// the current name by id. No foreign key to `tenants`, so it rebuilds alone (docs/decisions.md "Identity").
// Names are not unique (docs/decisions.md "Charges"), so there is no unique index on them.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table cost_centers (
      id text primary key,
      tenant_id text not null,
      name text not null,
      active boolean not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db);
  await sql`create index cost_centers_tenant on cost_centers (tenant_id, created_at, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table cost_centers`.execute(db);
}
