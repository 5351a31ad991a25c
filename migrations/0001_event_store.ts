import { type Kysely, sql } from 'kysely';

// DESIGN.md "The event store port": versions are 1-based (a stream's version is its event count).
// transaction_id orders subscribers by commit-safe (xid8, position) so a late commit is never skipped.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table streams (
      stream_id text primary key,
      version bigint not null check (version > 0)
    )`.execute(db);
  await sql`
    create table events (
      global_position bigint generated always as identity primary key,
      transaction_id xid8 not null default pg_current_xact_id(),
      stream_id text not null,
      version bigint not null,
      event_id uuid not null unique,
      type text not null,
      schema_version integer not null default 1,
      data jsonb not null,
      metadata jsonb not null,
      recorded_at timestamptz not null default now(),
      unique (stream_id, version)
    )`.execute(db);
  await sql`create index events_commit_order on events (transaction_id, global_position)`.execute(db);
  await sql`
    create table projection_checkpoints (
      name text primary key,
      tx bigint not null default 0,
      pos bigint not null default 0,
      updated_at timestamptz not null default now()
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table projection_checkpoints, events, streams`.execute(db);
}
