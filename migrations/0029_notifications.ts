import { type Kysely, sql } from 'kysely';

// Issue 28 item 5 (SPEC 5.7 "Read logs/notifications", "Create internal notification", "Mark notification
// read"): the inline read model of internal notifications and one receipt per user who marked one read
// (docs/decisions.md "Panel notifications, logs and the roles table"). No foreign keys, so each rebuilds alone.
// Lists are newest first, filtered by tenant (or the platform-wide ones, tenant_id null).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table notifications (
      id text primary key,
      tenant_id text,
      title text not null,
      body text not null,
      severity text not null check (severity in ('info', 'warning', 'critical')),
      created_by text not null,
      created_at timestamptz not null
    )`.execute(db);
  await sql`create index notifications_created on notifications (created_at desc, id desc)`.execute(db);
  await sql`create index notifications_tenant on notifications (tenant_id, created_at desc, id desc)`.execute(
    db,
  );
  await sql`
    create table notification_reads (
      notification_id text not null,
      user_id text not null,
      read_at timestamptz not null,
      primary key (user_id, notification_id)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table notification_reads`.execute(db);
  await sql`drop table notifications`.execute(db);
}
