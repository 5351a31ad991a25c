import { type Kysely, sql } from 'kysely';
import type { Projection } from '../../src/events/projection.ts';

/** A test read model: per stream, the number of Counter.Incremented events and the sum of `by`. */
export async function createTotalsTable<DB>(db: Kysely<DB>): Promise<void> {
  await sql`create table if not exists test_totals (stream_id text primary key, events int not null, total bigint not null)`.execute(
    db,
  );
}

export function totalsProjection(name = 'test_totals', onEvent?: () => void): Projection {
  return {
    name,
    eventTypes: ['Counter.Incremented'],
    async handle(event, trx) {
      onEvent?.();
      const by = (event.data as { by: number }).by;
      await sql`insert into test_totals (stream_id, events, total) values (${event.stream}, 1, ${by})
        on conflict (stream_id) do update set events = test_totals.events + 1, total = test_totals.total + ${by}`.execute(
        trx,
      );
    },
    async reset(trx) {
      await sql`truncate test_totals`.execute(trx);
    },
  };
}

export interface TotalsDiff {
  stream: string;
  expected: { events: number; total: number } | undefined;
  actual: { events: number; total: number } | undefined;
}

/** The read model against the fold of the log: every difference, none when they agree. */
export async function diffTotals<DB>(db: Kysely<DB>): Promise<TotalsDiff[]> {
  const { rows: expectedRows } = await sql<{ stream_id: string; events: string; total: string }>`
    select stream_id, count(*) as events, sum((data->>'by')::bigint) as total from events
    where type = 'Counter.Incremented' group by stream_id`.execute(db);
  const { rows: actualRows } = await sql<{ stream_id: string; events: number; total: string }>`
    select stream_id, events, total from test_totals`.execute(db);
  const expected = new Map(
    expectedRows.map((r) => [r.stream_id, { events: Number(r.events), total: Number(r.total) }]),
  );
  const actual = new Map(
    actualRows.map((r) => [r.stream_id, { events: Number(r.events), total: Number(r.total) }]),
  );
  const diffs: TotalsDiff[] = [];
  for (const stream of new Set([...expected.keys(), ...actual.keys()])) {
    const e = expected.get(stream);
    const a = actual.get(stream);
    if (e?.events !== a?.events || e?.total !== a?.total) diffs.push({ stream, expected: e, actual: a });
  }
  return diffs;
}
