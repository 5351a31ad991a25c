/**
 * Catch-up reading: loads a log through PostgresEventStore (batched appends over many streams), then reads
 * the whole log with `readAll` from START, for several batch sizes, interleaved with a reference that runs
 * the same SQL through a bare `pg` client (no mapping to RecordedEvent). Target >= 50,000 events/s.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { type Checkpoint, type NewEvent, START } from '../src/events/event-store.ts';
import { PostgresEventStore } from '../src/events/postgres-event-store.ts';
import { chargeEvent } from './append.ts';
import {
  type BenchDatabase,
  type BenchOptions,
  createBenchDatabase,
  fmt,
  machine,
  median,
  onDatabase,
  printRecord,
  printTable,
  serverSettings,
} from './support.ts';

/** Appends per stream while loading; with 500-event appends a stream holds 2,500 events. */
const APPENDS_PER_STREAM = 5;
/** Concurrent loaders. */
const LOADERS = 4;
/** Events read per side and batch size before measuring, then discarded. */
const WARMUP_EVENTS = 50_000;

export interface ReadRun {
  run: number;
  batch: number;
  side: 'gateway' | 'raw pg';
  events: number;
  seconds: number;
  rate: number;
  /** CPU time of this Node process per event read (user + system), microseconds. */
  cpuPerEvent: number;
}

export interface CatchupReport {
  loaded: number;
  loadSeconds: number;
  runs: ReadRun[];
  medians: { batch: number; gateway: number; raw: number; ratio: number }[];
}

async function load(store: PostgresEventStore, total: number, batch: number): Promise<number> {
  const appends = Math.ceil(total / batch);
  const streams = Math.ceil(appends / APPENDS_PER_STREAM);
  let nextStream = 0;
  let loaded = 0;
  await Promise.all(
    Array.from({ length: LOADERS }, async () => {
      while (nextStream < streams) {
        const s = nextStream++;
        let version = 0;
        for (let a = 0; a < APPENDS_PER_STREAM && loaded < total; a++) {
          const n = Math.min(batch, total - loaded);
          loaded += n;
          const events: NewEvent[] = Array.from({ length: n }, chargeEvent);
          const r = await store.append(`charge-${s}`, events, version === 0 ? 'no_stream' : version);
          version = r.version;
        }
      }
    }),
  );
  return loaded;
}

/** Hard bound on reads per pass: a pass that does not finish by then is a bug, not a slow run. */
function maxReads(total: number, batch: number): number {
  return Math.ceil(total / batch) + 10;
}

/** Reads the log from START until `total` events (the whole log, unless warming up). */
async function gatewayPass(
  store: PostgresEventStore,
  total: number,
  batch: number,
  run: number,
): Promise<ReadRun> {
  let after: Checkpoint = START;
  let events = 0;
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < maxReads(total, batch) && events < total; i++) {
    const page = await store.readAll(after, Math.min(batch, total - events));
    if (page.length === 0) break;
    events += page.length;
    after = (page[page.length - 1] as (typeof page)[number]).checkpoint;
  }
  return finish('gateway', run, batch, total, events, start, cpu0);
}

/** The adapter's readAll SQL, through a bare pg client; rows are only counted. */
async function rawPass(client: pg.Client, total: number, batch: number, run: number): Promise<ReadRun> {
  let tx = '0';
  let pos = '0';
  let events = 0;
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < maxReads(total, batch) && events < total; i++) {
    const { rows } = await client.query<{ global_position: string; transaction_id: string }>(
      `select global_position, transaction_id::text as transaction_id, stream_id, version, event_id, type,
         schema_version, data, metadata, recorded_at
       from events
       where (transaction_id, global_position) > ($1::xid8, $2)
         and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
       order by events.transaction_id, events.global_position
       limit $3`,
      [tx, pos, Math.min(batch, total - events)],
    );
    const last = rows[rows.length - 1];
    if (!last) break;
    events += rows.length;
    tx = last.transaction_id;
    pos = last.global_position;
  }
  return finish('raw pg', run, batch, total, events, start, cpu0);
}

function finish(
  side: ReadRun['side'],
  run: number,
  batch: number,
  total: number,
  events: number,
  start: number,
  cpu0: NodeJS.CpuUsage,
): ReadRun {
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  if (events !== total) throw new Error(`${side} catch-up read ${events} events, expected ${total}`);
  return {
    run,
    batch,
    side,
    events,
    seconds,
    rate: events / seconds,
    cpuPerEvent: (cpu.user + cpu.system) / events,
  };
}

export async function benchCatchup(opts: BenchOptions): Promise<CatchupReport> {
  console.log(
    `\n## catchup: ${fmt(opts.events)} events loaded in appends of ${opts.appendBatch}; readAll batches ${opts.readBatches.join(', ')}; ${opts.runs} runs`,
  );
  printRecord('machine', machine());
  printRecord('postgres', await serverSettings());
  const bench: BenchDatabase = await createBenchDatabase(LOADERS);
  const raw = new pg.Client({ connectionString: bench.url });
  try {
    const store = new PostgresEventStore(bench.db);
    const t0 = performance.now();
    const loaded = await load(store, opts.events, opts.appendBatch);
    const loadSeconds = (performance.now() - t0) / 1000;
    console.log(
      `loaded ${fmt(loaded)} events in ${fmt(loadSeconds, 1)} s (${fmt(loaded / loadSeconds)} events/s)`,
    );
    // A freshly loaded table is read once with hint-bit writes; a long-lived log has them set already.
    await onDatabase(bench.url, 'vacuum (analyze) events');
    const { rows: size } = await sql<{ size: string }>`
      select pg_size_pretty(pg_total_relation_size('events')) as size`.execute(bench.db);
    console.log(`events table with indexes: ${size[0]?.size ?? '?'}`);
    await raw.connect();
    // Discarded warm-up (JIT, plan cache, page cache): a long-lived subscriber is warm.
    const warm = Math.min(loaded, WARMUP_EVENTS);
    for (const batch of opts.readBatches) {
      await gatewayPass(store, warm, batch, 0);
      await rawPass(raw, warm, batch, 0);
    }
    const runs: ReadRun[] = [];
    for (let run = 1; run <= opts.runs; run++) {
      const batches = run % 2 === 1 ? opts.readBatches : [...opts.readBatches].reverse();
      for (const batch of batches) {
        const sides =
          run % 2 === 1
            ? [() => gatewayPass(store, loaded, batch, run), () => rawPass(raw, loaded, batch, run)]
            : [() => rawPass(raw, loaded, batch, run), () => gatewayPass(store, loaded, batch, run)];
        for (const side of sides) {
          const r = await side();
          runs.push(r);
          console.log(
            `run ${run} batch ${batch} ${r.side}: ${fmt(r.rate)} events/s (${fmt(r.events)} in ${fmt(r.seconds, 2)} s; Node CPU ${fmt(r.cpuPerEvent, 1)} µs/event)`,
          );
        }
      }
    }
    const medians = opts.readBatches.map((batch) => {
      const gateway = median(
        runs.filter((r) => r.batch === batch && r.side === 'gateway').map((r) => r.rate),
      );
      const rawRate = median(runs.filter((r) => r.batch === batch && r.side === 'raw pg').map((r) => r.rate));
      return { batch, gateway, raw: rawRate, ratio: gateway / rawRate };
    });
    console.log('\nraw runs (events/s):\n');
    printTable(
      [
        'run',
        'batch',
        'gateway readAll',
        'gateway Node CPU µs/event',
        'raw pg, same SQL',
        'raw pg Node CPU µs/event',
      ],
      runs
        .filter((r) => r.side === 'gateway')
        .map((g) => {
          const r = runs.find((x) => x.side === 'raw pg' && x.run === g.run && x.batch === g.batch);
          return [
            g.run,
            g.batch,
            fmt(g.rate),
            fmt(g.cpuPerEvent, 1),
            r ? fmt(r.rate) : '-',
            r ? fmt(r.cpuPerEvent, 1) : '-',
          ];
        }),
    );
    console.log('\nmedians (events/s; target >= 50,000):\n');
    printTable(
      ['batch', 'gateway readAll', 'raw pg, same SQL', 'ratio'],
      medians.map((m) => [m.batch, fmt(m.gateway), fmt(m.raw), fmt(m.ratio, 2)]),
    );
    return { loaded, loadSeconds, runs, medians };
  } finally {
    await raw.end().catch(() => {});
    await bench.drop();
  }
}
