import { type Kysely, sql } from 'kysely';

// Inline read models that authentication reads on every request (DESIGN.md: keys, sessions, tenants).
// No foreign key points at `tenants` from another projection's table: each read model must rebuild alone
// (TRUNCATE refuses a referenced table), and under EventStoreDB each projection catches up on its own, in
// any order. Commands check references before they append instead (docs/decisions.md "Identity").
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table tenant_types (
      id text primary key,
      name text not null,
      allows_children boolean not null,
      created_at timestamptz not null
    )`.execute(db);
  await sql`create unique index tenant_types_name on tenant_types (lower(name))`.execute(db);
  // ancestor_ids: root first, the tenant itself last; subtree queries use the GIN index (ancestor_ids @> {id}).
  await sql`
    create table tenants (
      id text primary key,
      name text not null,
      type_id text not null,
      parent_id text references tenants (id),
      ancestor_ids text[] not null,
      status text not null check (status in ('active', 'suspended')),
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db);
  await sql`create index tenants_ancestors on tenants using gin (ancestor_ids)`.execute(db);
  await sql`create index tenants_parent on tenants (parent_id)`.execute(db);
  await sql`
    create table users (
      id text primary key,
      email text not null,
      role text not null check (role in ('super_admin', 'tenant_admin', 'viewer')),
      tenant_id text,
      status text not null check (status in ('active', 'suspended')),
      password_hash text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db);
  await sql`create unique index users_email on users (lower(email))`.execute(db);
  await sql`create index users_tenant on users (tenant_id)`.execute(db);
  // sessions.user_id has no foreign key either, for the same reason: users and sessions rebuild alone.
  await sql`
    create table sessions (
      token_sha256 text primary key,
      id text not null unique,
      user_id text not null,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      revoked_at timestamptz,
      revoked_reason text
    )`.execute(db);
  await sql`create index sessions_user on sessions (user_id) where revoked_at is null`.execute(db);
  await sql`
    create table api_keys (
      id text primary key,
      secret_sha256 text not null unique,
      prefix text not null,
      tenant_id text not null,
      livemode boolean not null,
      name text not null,
      scopes text[] not null,
      access_profile text not null check (access_profile in ('standard', 'developer')),
      created_by text not null,
      created_at timestamptz not null,
      revoked_at timestamptz
    )`.execute(db);
  await sql`create index api_keys_tenant on api_keys (tenant_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table api_keys, sessions, users, tenants, tenant_types`.execute(db);
}
