import { type Kysely, sql } from 'kysely';

// Issue 14: the charge link's signature kept in the read model (src/charge-page/stored-signature.ts), so a
// list of 100 charges reads 100 signatures instead of computing 100 HMACs. `<key id>.<signature>`; rows
// written before (null) or under another secret are signed at read time, as before.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table transactions add column document_signature text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table transactions drop column document_signature`.execute(db);
}
