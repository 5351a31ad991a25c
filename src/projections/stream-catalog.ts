import { sql } from 'kysely';
import type { Projection } from './projection.ts';

/** `transaction-txn_1` → `transaction`: the part before the first dash names the aggregate. */
export function streamCategory(stream: string): string {
  const dash = stream.indexOf('-');
  return dash === -1 ? stream : stream.slice(0, dash);
}

/**
 * Every stream with its category, version and last event: lets auditors and replay tools enumerate the
 * streams of one aggregate type without scanning the log. Async; one row per stream, so no hot rows.
 */
export const streamCatalog: Projection = {
  name: 'stream_catalog',
  eventTypes: [],
  handlesAll: true,
  async handle(event, trx) {
    await trx
      .insertInto('stream_catalog')
      .values({
        stream_id: event.stream,
        category: streamCategory(event.stream),
        version: event.version,
        last_type: event.type,
        first_recorded_at: event.recordedAt,
        last_recorded_at: event.recordedAt,
      })
      .onConflict((oc) =>
        oc.column('stream_id').doUpdateSet({
          version: sql`excluded.version`,
          last_type: sql`excluded.last_type`,
          last_recorded_at: sql`excluded.last_recorded_at`,
        }),
      )
      .execute();
  },
  async reset(trx) {
    await sql`truncate stream_catalog`.execute(trx);
  },
};
