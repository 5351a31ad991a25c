import { type Kysely, sql } from 'kysely';

// Issue 13: the Safe2Pay hosts of an external provider record (null: the real hosts), so the panel list shows
// what the provider's stream holds. Rows written before keep null, which reads as the defaults.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table providers add column payment_host text, add column api_host text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table providers drop column payment_host, drop column api_host`.execute(db);
}
