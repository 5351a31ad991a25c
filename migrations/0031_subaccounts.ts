import { type Kysely, sql } from 'kysely';

// Inline read model of marketplace subaccount links (SPEC 2.7, 3.6, 4.14): lists filter by provider, tenant
// and status. `tokens_ciphertext` is the sealed token set (AES-256-GCM bound to the subaccount and provider),
// kept so reads recompute has_production_token/has_sandbox_token; no bank data is ever stored.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table subaccounts (
      id text primary key,
      provider_id text not null,
      tenant_id text not null,
      name text not null,
      document text not null,
      email text not null,
      status text not null,
      provider_reference text,
      tokens_ciphertext text,
      last_error_code text,
      last_provider_error_code text,
      last_error_message text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db);
  await sql`create index subaccounts_created on subaccounts (created_at, id)`.execute(db);
  await sql`create index subaccounts_provider on subaccounts (provider_id, status)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table subaccounts`.execute(db);
}
