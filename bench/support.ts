import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus, freemem, totalmem } from 'node:os';
import pg from 'pg';
import { type DatabaseHandle, openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';

/** The server benchmarks create their databases on (loopback, trust auth by default). */
export const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchOptions {
  /** Seconds per measured append run (gateway and pgbench alike). */
  seconds: number;
  /** Measured runs per side; medians are quoted. */
  runs: number;
  /** Concurrent append clients (gateway tasks and pgbench -c). */
  clients: number;
  /** Gateway pool size. */
  pool: number;
  /** Seconds of discarded gateway appends before the first measured run (JIT, plan cache). */
  warmup: number;
  /** Events loaded before the catch-up benchmark. */
  events: number;
  /** Events per append while loading the catch-up log. */
  appendBatch: number;
  /** readAll batch sizes measured by the catch-up benchmark. */
  readBatches: number[];
  /** Path of the pgbench binary. */
  pgbench: string;
  /** Write the raw results as JSON to this file. */
  out: string | undefined;
  /** Events per second offered by the webhook lag benchmark. */
  rate: number;
  /** Issue 7 seed (B3/B4/B5): tenants, transactions, and the charges of the first (primary) tenant. */
  tenants: number;
  transactions: number;
  primary: number;
  /** An existing seeded database to measure instead of seeding one (never dropped). */
  reuse: string | undefined;
  /** Keep the database this invocation seeded (to `--reuse` it later). */
  keep: boolean;
  /** Closed-loop clients of the list and summary benchmarks. */
  concurrency: number;
  /** Seconds per measured list/summary variant run, each side. */
  duration: number;
}

export interface BenchDatabase extends DatabaseHandle {
  name: string;
  url: string;
  /** Closes the handle and drops the database. */
  drop(): Promise<void>;
}

const live = new Set<string>();

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function dropDatabase(name: string): Promise<void> {
  await admin((c) => c.query(`drop database if exists ${name} with (force)`));
  live.delete(name);
}

/**
 * A fresh database for one benchmark, migrated unless `migrate` is false (the HTTP benchmarks leave it to
 * the served gateway, which may be another tree: BENCH_GATEWAY_ROOT); always `drop()` it.
 */
export async function createBenchDatabase(poolSize: number, migrate = true): Promise<BenchDatabase> {
  const name = `calebe_bench_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`create database ${name}`));
  live.add(name);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const handle = openDatabase({ url: url.toString(), poolSize });
  try {
    if (migrate) await migrateToLatest(handle.db);
  } catch (error) {
    await handle.close();
    await dropDatabase(name);
    throw error;
  }
  let dropped = false;
  return {
    ...handle,
    name,
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      await handle.close();
      await dropDatabase(name);
    },
  };
}

/** Drops every bench database still alive (on SIGINT/SIGTERM). */
export async function dropLiveDatabases(): Promise<void> {
  for (const name of [...live]) await dropDatabase(name).catch(() => {});
}

/** Runs a statement on a bench database outside its pool (CHECKPOINT, VACUUM). */
export async function onDatabase(url: string, statement: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(statement);
  } finally {
    await client.end();
  }
}

/** The server settings that matter for write and read throughput. */
export const SETTINGS = [
  'server_version',
  'synchronous_commit',
  'fsync',
  'wal_sync_method',
  'full_page_writes',
  'commit_delay',
  'shared_buffers',
  'max_wal_size',
  'checkpoint_timeout',
  'wal_level',
  'max_connections',
  'jit',
] as const;

export async function serverSettings(): Promise<Record<string, string>> {
  return admin(async (c) => {
    const out: Record<string, string> = {};
    for (const name of SETTINGS) {
      const { rows } = await c.query<Record<string, string>>(`show ${name}`);
      out[name] = rows[0]?.[name] ?? '?';
    }
    return out;
  });
}

export function machine(): Record<string, string> {
  const cpu = cpus();
  return {
    cpus: String(cpu.length),
    cpu_model: cpu[0]?.model ?? '?',
    memory: `${Math.round(totalmem() / 2 ** 20)} MiB (free ${Math.round(freemem() / 2 ** 20)} MiB)`,
    node: process.version,
  };
}

export function printRecord(title: string, record: Record<string, string>): void {
  console.log(
    `${title}: ${Object.entries(record)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}`,
  );
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Nearest-rank percentile of an ascending array (p in 0..100). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

export function fmt(n: number, digits = 0): string {
  if (!Number.isFinite(n)) return '-';
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Prints a Markdown table (pastes straight into BENCHMARKS.md). */
export function printTable(
  headers: readonly string[],
  rows: readonly (readonly (string | number)[])[],
): void {
  const cells = rows.map((r) => r.map((c) => (typeof c === 'number' ? fmt(c) : c)));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) => `| ${widths.map((w, i) => (r[i] ?? '').padEnd(w)).join(' | ')} |`;
  console.log(line(headers));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of cells) console.log(line(r));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A closed loop: `concurrency` workers each call `fn` again as soon as the previous call returns, for
 * `seconds`; returns every call's latency in ms (ascending) and the achieved rate (issue 7 B3, B5).
 */
export async function closedLoop(
  concurrency: number,
  seconds: number,
  fn: () => Promise<void>,
): Promise<{ latencies: number[]; perSecond: number }> {
  const latencies: number[] = [];
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        await fn();
        latencies.push(performance.now() - t);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { latencies, perSecond: latencies.length / ((performance.now() - started) / 1000) };
}

/** One pgbench run's figures (the reference side of the append and create benchmarks). */
export interface PgbenchFigures {
  transactions: number;
  failed: number;
  rate: number;
  latencyAvg: number;
}

/** pgbench arguments for `script` at the benchmark's clients and duration; `tag` names the run (`-D run=`). */
export function pgbenchArgs(
  opts: Pick<BenchOptions, 'clients' | 'seconds'>,
  script: string,
  tag: string,
  url: string,
  mode: 'simple' | 'extended' | 'prepared' = 'simple',
): string[] {
  return [
    '-n',
    '-M',
    mode,
    '-c',
    String(opts.clients),
    '-j',
    '2',
    '-T',
    String(opts.seconds),
    '-D',
    `run=${tag}`,
    '-f',
    script,
    url,
  ];
}

/** Flushes dirty buffers between runs, so a checkpoint started by one side is not charged to the other. */
export async function settle(bench: BenchDatabase): Promise<void> {
  await onDatabase(bench.url, 'checkpoint');
  await sleep(500);
}

/** Runs pgbench with `args` (it stops itself after -T seconds; the guard only catches a hang) and parses it. */
export async function runPgbench(pgbench: string, args: string[], seconds: number): Promise<PgbenchFigures> {
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(pgbench, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const guard = setTimeout(() => child.kill('SIGTERM'), (seconds + 60) * 1000);
    child.on('error', (e) => {
      clearTimeout(guard);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(guard);
      if (code === 0) resolve(out);
      else reject(new Error(`pgbench exited with ${code}:\n${out}`));
    });
  });
  const num = (re: RegExp): number => {
    const m = re.exec(output);
    if (!m?.[1]) throw new Error(`unexpected pgbench output (${re}):\n${output}`);
    return Number(m[1]);
  };
  return {
    transactions: num(/number of transactions actually processed: (\d+)/),
    failed: /number of failed transactions: (\d+)/.test(output)
      ? num(/number of failed transactions: (\d+)/)
      : 0,
    rate: num(/tps = ([\d.]+) \(without initial connection time\)/),
    latencyAvg: num(/latency average = ([\d.]+) ms/),
  };
}

/**
 * The table row of an idle tick (`ticks`, ms, none due) over every row of `table`, and its claim query's plan
 * printed (the partial index is what keeps it flat: issue 26, issue 27 item 6).
 */
export async function idleTickRow(
  url: string,
  table: string,
  noun: string,
  claimSql: string,
  ticks: readonly number[],
): Promise<string[]> {
  const plan = await onDatabase(url, `explain ${claimSql}`);
  const total = await onDatabase(url, `select count(*)::int as n from ${table}`);
  console.log(
    plan.rows.map((r) => (r as Record<string, string>)['QUERY PLAN']).join('\n'),
    `\nidle ticks (ms): ${ticks.map((t) => fmt(t, 1)).join(', ')}`,
  );
  return [
    `tick over ${fmt((total.rows[0] as { n: number }).n)} ${noun}, none due (ms, median of 3)`,
    '0',
    fmt(median(ticks), 1),
    '',
    '',
    '',
  ];
}
