import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table stream_catalog (
      stream_id text primary key,
      category text not null,
      version bigint not null,
      last_type text not null,
      first_recorded_at timestamptz not null,
      last_recorded_at timestamptz not null
    )`.execute(db);
  await sql`create index stream_catalog_category on stream_catalog (category, stream_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table stream_catalog`.execute(db);
}
