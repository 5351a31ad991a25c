import { type Kysely, sql } from 'kysely';

// Inline read models of providers and routing rules (SPEC 2.7, 2.8): the resolver reads them for every new
// charge. No foreign keys between them or to `tenants`, so each rebuilds alone (docs/decisions.md "Identity").
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table providers (
      id text primary key,
      name text not null,
      kind text not null check (kind in ('simulator', 'external')),
      environment text not null check (environment in ('sandbox', 'production')),
      enabled_methods text[] not null,
      is_marketplace boolean not null,
      enabled boolean not null,
      credentials_ciphertext text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db);
  await sql`
    create table routing_rules (
      id text primary key,
      method text not null check (method in ('pix', 'boleto')),
      tenant_id text,
      provider_id text not null,
      priority integer not null,
      max_amount integer not null,
      enabled boolean not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db);
  await sql`create index routing_rules_method_tenant on routing_rules (method, tenant_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table routing_rules, providers`.execute(db);
}
