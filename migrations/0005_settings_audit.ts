import { type Kysely, sql } from 'kysely';

// The audit read model (async projection `audit_log`, src/projections/audit.ts). The payment setting itself
// needs no table: it is folded from its stream `payment_settings-global` on every read.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table audit_log (
      id text primary key,
      position bigint not null,
      occurred_at timestamptz not null,
      actor text not null,
      action text not null,
      target_type text not null,
      target_id text not null,
      tenant_id text,
      request_id text,
      before jsonb,
      after jsonb
    )`.execute(db);
  await sql`create index audit_log_position on audit_log (position desc)`.execute(db);
  await sql`create index audit_log_tenant on audit_log (tenant_id, position desc)`.execute(db);
  await sql`create index audit_log_target on audit_log (target_id, position desc)`.execute(db);
  await sql`create index audit_log_action on audit_log (action, position desc)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table audit_log`.execute(db);
}
