import { type Kysely, sql } from 'kysely';

// Issue 23 item 2.5: the boleto PDF rendered once per document version and served from here by every API
// process (several share one database). `version` is the sha256 of what the PDF prints
// (src/boleto-pdf/version.ts), so a due-date change, a payment or the Pix's deadline make a new row and a new
// ETag. A cache, not a projection: no foreign key (a rebuild truncates `transactions`), and a lost row is
// rendered again. Only the newest version of a charge is kept (src/boleto-pdf/cache.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table boleto_pdf_cache (
    transaction_id text not null,
    version text not null check (version ~ '^[0-9a-f]{64}$'),
    pdf bytea not null,
    rendered_at timestamptz not null default now(),
    primary key (transaction_id, version)
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table boleto_pdf_cache`.execute(db);
}
