import { sql } from 'kysely';
import { recordset, setExcluded } from './batch-sql.ts';
import type { Projection } from './projection.ts';

/** `transaction-txn_1` → `transaction`: the part before the first dash names the aggregate. */
export function streamCategory(stream: string): string {
  const dash = stream.indexOf('-');
  return dash === -1 ? stream : stream.slice(0, dash);
}

interface StreamRow {
  stream_id: string;
  category: string;
  version: number;
  last_type: string;
  first_recorded_at: Date;
  last_recorded_at: Date;
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
  /**
   * One row per stream of the batch: its first event's time for a new row, its last event for the rest.
   * Instants travel as ISO strings (a Date's toJSON is the costliest field of a JSON.stringify; issue 14 B4).
   */
  async handleBatch(events, trx) {
    const rows = new Map<string, StreamRow>();
    for (const e of events) {
      const row = rows.get(e.stream);
      if (row) {
        row.version = e.version;
        row.last_type = e.type;
        row.last_recorded_at = e.recordedAt;
      } else
        rows.set(e.stream, {
          stream_id: e.stream,
          category: streamCategory(e.stream),
          version: e.version,
          last_type: e.type,
          first_recorded_at: e.recordedAt,
          last_recorded_at: e.recordedAt,
        });
    }
    const values = [...rows.values()].map((r) => ({
      ...r,
      first_recorded_at: r.first_recorded_at.toISOString(),
      last_recorded_at: r.last_recorded_at.toISOString(),
    }));
    await sql`
      insert into stream_catalog select * from ${recordset('stream_catalog', values)}
      on conflict (stream_id) do update set ${setExcluded(['version', 'last_type', 'last_recorded_at'])}`.execute(
      trx,
    );
  },
  async reset(trx) {
    await sql`truncate stream_catalog`.execute(trx);
  },
};
