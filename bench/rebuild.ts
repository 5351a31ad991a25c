import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { allProjections, inlineProjections } from '../src/commands/index.ts';
import { openDatabase } from '../src/db/database.ts';
import { PostgresEventStore } from '../src/events/postgres-event-store.ts';
import { ProjectionRunner } from '../src/projections/projection-runner.ts';
import { meterBackends, procCpuSeconds } from './pg-backend-cpu.ts';
import { DOCUMENT_SIGNING_SECRET, type SeededDatabase } from './seed.ts';
import { type BenchOptions, fmt, median, onDatabase, printTable } from './support.ts';

export interface RebuildRun {
  run: number;
  events: number;
  seconds: number;
  eventsPerSecond: number;
  referenceEventsPerSecond: number;
  /** CPU per event, µs: the rebuild process and the database's backends (issue 14). */
  cpuUsPerEvent: number;
  processCpuUsPerEvent: number;
  pgCpuUsPerEvent: number;
}

export interface RebuildResult {
  runs: RebuildRun[];
  everyProjection: { events: number; seconds: number; eventsPerSecond: number };
}

/**
 * The tree whose `calebe rebuild --all` runs: this one, or BENCH_GATEWAY_ROOT (another checkout with its
 * node_modules), so two builds are measured interleaved on one seeded database (issue 14).
 */
const ROOT = (process.env.BENCH_GATEWAY_ROOT ?? fileURLToPath(new URL('..', import.meta.url))).replace(
  /\/$/,
  '',
);

/**
 * `calebe rebuild --all` as a child process; its own "N events in S s" line is the figure. Its CPU time
 * (sampled from /proc while it runs) and the database's backends' make the CPU per event.
 */
async function rebuildCommand(
  db: SeededDatabase,
  cpuProfDir: string | undefined,
): Promise<{ events: number; seconds: number; processCpu: number; pgCpu: number }> {
  const meter = await meterBackends(db.name);
  const nodeArgs = cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfDir] : [];
  const child = spawn(process.execPath, [...nodeArgs, `${ROOT}/bin/calebe.js`, 'rebuild', '--all'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: db.url, DOCUMENT_SIGNING_SECRET, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  let processCpu = 0;
  const sampler = setInterval(() => {
    const cpu = child.pid === undefined ? Number.NaN : procCpuSeconds(child.pid);
    if (!Number.isNaN(cpu)) processCpu = cpu;
  }, 100);
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    process.stdout.write(chunk);
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', resolve);
  });
  clearInterval(sampler);
  const backends = await meter.stop();
  if (code !== 0) throw new Error(`calebe rebuild --all exited with ${code}`);
  const m = /: (\d+) events in ([\d.]+) s/.exec(out);
  if (!m) throw new Error(`calebe rebuild --all printed no figure:\n${out}`);
  return { events: Number(m[1]), seconds: Number(m[2]), processCpu, pgCpu: backends.seconds };
}

/** The store's readAll statement over the whole log, batch 5,000, on a bare client. */
async function bareRead(url: string): Promise<{ events: number; seconds: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const started = performance.now();
    let tx = '0';
    let pos = '0';
    let events = 0;
    for (;;) {
      const { rows } = await client.query<{ transaction_id: string; global_position: string }>(
        `select global_position, transaction_id::text as transaction_id, stream_id, version, event_id, type,
           schema_version, data, metadata, recorded_at from events
         where (transaction_id, global_position) > ($1::xid8, $2)
           and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
         order by events.transaction_id, events.global_position limit 5000`,
        [tx, pos],
      );
      const last = rows.at(-1);
      if (!last) break;
      events += rows.length;
      tx = last.transaction_id;
      pos = last.global_position;
    }
    return { events, seconds: (performance.now() - started) / 1000 };
  } finally {
    await client.end();
  }
}

export async function benchRebuild(
  opts: BenchOptions,
  db: SeededDatabase,
  cpuProfDir?: string,
): Promise<RebuildResult> {
  console.log(
    `\nB4 rebuild: ${fmt(db.events)} events in the log; ${opts.runs} runs of each side, alternating; ${ROOT}`,
  );
  const runs: RebuildRun[] = [];
  for (let run = 1; run <= opts.runs; run++) {
    await onDatabase(db.url, 'checkpoint');
    const cliFirst = run % 2 === 1;
    let command = { events: 0, seconds: 0, processCpu: 0, pgCpu: 0 };
    let reference = { events: 0, seconds: 0 };
    for (const side of cliFirst ? ['cli', 'ref'] : ['ref', 'cli']) {
      if (side === 'cli') command = await rebuildCommand(db, cpuProfDir);
      else reference = await bareRead(db.url);
    }
    runs.push({
      run,
      events: command.events,
      seconds: command.seconds,
      eventsPerSecond: command.events / command.seconds,
      referenceEventsPerSecond: reference.events / reference.seconds,
      cpuUsPerEvent: ((command.processCpu + command.pgCpu) * 1e6) / command.events,
      processCpuUsPerEvent: (command.processCpu * 1e6) / command.events,
      pgCpuUsPerEvent: (command.pgCpu * 1e6) / command.events,
    });
  }

  // Every projection, inline ones included, in one pass (needs the gateway stopped, like `rebuild`). Long
  // (it rewrites the transactions table too): only with BENCH_REBUILD_EVERY=1.
  const handle = openDatabase({ url: db.url, poolSize: 8 });
  let everyProjection = { events: 0, seconds: 0, eventsPerSecond: 0 };
  try {
    if (process.env.BENCH_REBUILD_EVERY !== '1') throw new SkipEvery();
    const store = new PostgresEventStore(handle.db, inlineProjections);
    const runner = new ProjectionRunner(handle.db, store, allProjections);
    await onDatabase(db.url, 'checkpoint');
    const started = performance.now();
    let last = started;
    let done = 0;
    const events = await runner.rebuildAll(allProjections, (n) => {
      done += n;
      if (performance.now() - last > 10_000) {
        last = performance.now();
        console.log(
          `  every projection: ${fmt(done)} events, ${fmt(done / ((last - started) / 1000))} events/s`,
        );
      }
    });
    const seconds = (performance.now() - started) / 1000;
    everyProjection = { events, seconds, eventsPerSecond: events / seconds };
  } catch (error) {
    if (!(error instanceof SkipEvery)) throw error;
  } finally {
    await handle.close();
  }

  printTable(
    [
      'run',
      'events',
      'rebuild --all s',
      'rebuild --all events/s',
      'bare readAll events/s',
      'ratio',
      'CPU µs/event (rebuild + PG)',
    ],
    runs.map((r) => [
      String(r.run),
      fmt(r.events),
      fmt(r.seconds, 1),
      fmt(r.eventsPerSecond),
      fmt(r.referenceEventsPerSecond),
      fmt(r.eventsPerSecond / r.referenceEventsPerSecond, 2),
      `${fmt(r.cpuUsPerEvent, 1)} (${fmt(r.processCpuUsPerEvent, 1)} + ${fmt(r.pgCpuUsPerEvent, 1)})`,
    ]),
  );
  const rate = median(runs.map((r) => r.eventsPerSecond));
  const ref = median(runs.map((r) => r.referenceEventsPerSecond));
  console.log(
    `\nmedian: rebuild --all ${fmt(rate)} events/s (target >= 20,000), bare read ${fmt(ref)} events/s, ratio ${fmt(rate / ref, 2)}, CPU ${fmt(median(runs.map((r) => r.cpuUsPerEvent)), 1)} µs/event (rebuild ${fmt(median(runs.map((r) => r.processCpuUsPerEvent)), 1)} + PostgreSQL ${fmt(median(runs.map((r) => r.pgCpuUsPerEvent)), 1)})`,
  );
  if (everyProjection.events > 0)
    console.log(
      `every projection (${allProjections.length}, inline included), one pass: ${fmt(everyProjection.events)} events in ${fmt(everyProjection.seconds, 1)} s = ${fmt(everyProjection.eventsPerSecond)} events/s`,
    );
  return { runs, everyProjection };
}

class SkipEvery extends Error {}
