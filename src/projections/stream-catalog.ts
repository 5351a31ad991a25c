import { sql, type Transaction } from 'kysely';
import { copyField, copyFromStdin } from '../db/copy-from-stdin.ts';
import type { Database } from '../db/schema.ts';
import type { RecordedEvent } from '../events/event-store.ts';
import type { Projection } from '../events/projection.ts';
import { droppableIndexes, recordset, setExcluded } from './batch-sql.ts';

/** `transaction-txn_1` → `transaction`: the part before the first dash names the aggregate. */
export function streamCategory(stream: string): string {
  const dash = stream.indexOf('-');
  return dash === -1 ? stream : stream.slice(0, dash);
}

interface StreamRow {
  /** The version of the stream's first event in the batch (not a column). */
  first_version: number;
  stream_id: string;
  category: string;
  version: number;
  last_type: string;
  first_recorded_at: Date;
  last_recorded_at: Date;
}

/** The batch's streams, each with its first and last event of the batch. */
function rowsOf(events: readonly RecordedEvent[]): Map<string, StreamRow> {
  const rows = new Map<string, StreamRow>();
  for (const e of events) {
    const row = rows.get(e.stream);
    if (row) {
      row.version = e.version;
      row.last_type = e.type;
      row.last_recorded_at = e.recordedAt;
    } else
      rows.set(e.stream, {
        first_version: e.version,
        stream_id: e.stream,
        category: streamCategory(e.stream),
        version: e.version,
        last_type: e.type,
        first_recorded_at: e.recordedAt,
        last_recorded_at: e.recordedAt,
      });
  }
  return rows;
}

async function upsert(rows: readonly StreamRow[], trx: Transaction<Database>): Promise<void> {
  const values = rows.map((r) => ({
    stream_id: r.stream_id,
    category: r.category,
    version: r.version,
    last_type: r.last_type,
    first_recorded_at: r.first_recorded_at.toISOString(),
    last_recorded_at: r.last_recorded_at.toISOString(),
  }));
  await sql`
    insert into stream_catalog select * from ${recordset('stream_catalog', values)}
    on conflict (stream_id) do update set ${setExcluded(['version', 'last_type', 'last_recorded_at'])}`.execute(
    trx,
  );
}

/** stream_catalog's columns, the order of `copyLine`'s fields. */
const COLUMNS = [
  'stream_id',
  'category',
  'version',
  'last_type',
  'first_recorded_at',
  'last_recorded_at',
] as const;

function copyLine(r: StreamRow): string {
  return `${copyField(r.stream_id)}\t${copyField(r.category)}\t${r.version}\t${copyField(r.last_type)}\t${r.first_recorded_at.toISOString()}\t${r.last_recorded_at.toISOString()}\n`;
}

/**
 * The secondary index of migrations/0002_stream_catalog.ts, dropped by a rebuild from empty and built back
 * at its end. Keep in step with the migration.
 */
const secondaryIndexes = droppableIndexes('stream_catalog', {
  stream_catalog_category: '(category, stream_id)',
});

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
    await upsert([...rowsOf(events).values()], trx);
  },

  /**
   * A rebuild from empty (`rebuildAll`, issue 14 B4): without the category index (built once at the end),
   * and a stream whose first event (version 1) is in the batch is a new row, written with COPY (about half
   * PostgreSQL's CPU per row of the jsonb recordset; a version 1 appears once per stream in the log, so
   * such a row cannot exist yet, and if it did the COPY would fail rather than write a different table).
   * The other streams' rows take the upsert of `handleBatch`.
   */
  bulkLoad: {
    async begin(trx, options) {
      await secondaryIndexes.drop(trx);
      const copy = options?.copyFromStdin === true;
      return {
        async handleBatch(events, trx) {
          const rows = rowsOf(events);
          if (!copy) return upsert([...rows.values()], trx);
          const earlier: StreamRow[] = [];
          let lines = '';
          for (const r of rows.values()) {
            if (r.first_version === 1) lines += copyLine(r);
            else earlier.push(r);
          }
          if (lines) await copyFromStdin('stream_catalog', COLUMNS, lines).execute(trx);
          if (earlier.length > 0) await upsert(earlier, trx);
        },
      };
    },
    async restore(trx) {
      await secondaryIndexes.restore(trx);
    },
  },

  async reset(trx) {
    await sql`truncate stream_catalog`.execute(trx);
  },
};
