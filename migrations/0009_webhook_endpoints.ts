import { type Kysely, sql } from 'kysely';

// Inline read model of webhook endpoints (SPEC 6; src/projections/webhook-endpoints.ts): the panel lists
// them by tenant and mode, and the delivery fan-out finds the enabled endpoints of a tenant and mode. Secrets
// are stored only sealed (AES-256-GCM, the endpoint id as associated data). A deleted endpoint keeps its row
// as a tombstone (`deleted_at`, secrets cleared) so `sequence` keeps replays idempotent. No foreign key to
// `tenants`, so it rebuilds alone (docs/decisions.md "Identity").
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table webhook_endpoints (
      id text primary key,
      tenant_id text not null,
      url text not null,
      mode text not null check (mode in ('live', 'test')),
      enabled boolean not null,
      disabled_reason text check (disabled_reason in ('gone', 'panel')),
      secret_sealed text,
      previous_secret_sealed text,
      previous_expires_at timestamptz,
      sequence bigint not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      deleted_at timestamptz
    )`.execute(db);
  await sql`
    create index webhook_endpoints_fan_out on webhook_endpoints (tenant_id, mode)
      where enabled and deleted_at is null`.execute(db);
  await sql`
    create index webhook_endpoints_tenant on webhook_endpoints (tenant_id, created_at, id)
      where deleted_at is null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table webhook_endpoints`.execute(db);
}
