import type { Kysely } from 'kysely';
import { Counter } from 'prom-client';
import type { Database } from '../db/schema.ts';
import { metrics } from '../metrics.ts';
import { type BoletoPdfInput, renderBoletoPdf } from './render.ts';

/**
 * The boleto PDF rendered once per document version (issue 23 item 2.5: a render costs about 18 ms of CPU,
 * and one client with one payer's link could keep the API busy). Rendered PDFs are kept in the database
 * (`boleto_pdf_cache`, migration 0020), which every API process shares; within a process, concurrent
 * requests for a version not stored yet wait for the same render.
 */

/** Renders of the boleto PDF in this process: a cached version is never rendered again. */
export const boletoPdfRenders = new Counter({
  name: 'calebe_boleto_pdf_renders_total',
  help: 'Boleto PDFs rendered (once per document version; cached versions are served from the database)',
  registers: [metrics],
});

const rendering = new Map<string, Promise<Buffer>>();

/**
 * The PDF of `version` of the charge's boleto: from the cache, or rendered once and stored. Requests for one
 * version join one flight that reads the cache first, so a request arriving as a render ends finds the
 * stored bytes instead of rendering again (the map is checked and filled without an await between).
 */
export function boletoPdf(
  db: Kysely<Database>,
  transactionId: string,
  version: string,
  input: BoletoPdfInput,
): Promise<Buffer> {
  const key = `${transactionId}/${version}`;
  let pending = rendering.get(key);
  if (!pending) {
    pending = storedOrRendered(db, transactionId, version, input).finally(() => rendering.delete(key));
    rendering.set(key, pending);
  }
  return pending;
}

async function storedOrRendered(
  db: Kysely<Database>,
  transactionId: string,
  version: string,
  input: BoletoPdfInput,
): Promise<Buffer> {
  const stored = await db
    .selectFrom('boleto_pdf_cache')
    .select('pdf')
    .where('transaction_id', '=', transactionId)
    .where('version', '=', version)
    .executeTakeFirst();
  return stored ? stored.pdf : renderAndStore(db, transactionId, version, input);
}

async function renderAndStore(
  db: Kysely<Database>,
  transactionId: string,
  version: string,
  input: BoletoPdfInput,
): Promise<Buffer> {
  const pdf = await renderBoletoPdf(input);
  boletoPdfRenders.inc();
  await db.transaction().execute(async (trx) => {
    // Another process may have stored the same version meanwhile: its bytes are the same (deterministic render).
    await trx
      .insertInto('boleto_pdf_cache')
      .values({ transaction_id: transactionId, version, pdf })
      .onConflict((oc) => oc.columns(['transaction_id', 'version']).doNothing())
      .execute();
    // Older versions are superseded (a payer's old link now shows the new document): keep one per charge.
    await trx
      .deleteFrom('boleto_pdf_cache')
      .where('transaction_id', '=', transactionId)
      .where('version', '<>', version)
      .execute();
  });
  return pdf;
}
