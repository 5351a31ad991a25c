/**
 * Benchmark dispatcher: `npm run bench -- <append|catchup|all> [flags]`. Never part of `npm test`.
 * Every flag can also come from the environment (BENCH_SECONDS, BENCH_RUNS, …); flags win.
 * Results go to stdout as Markdown tables; BENCHMARKS.md records them with the exact commands.
 */
import { writeFileSync } from 'node:fs';
import { benchAppend } from './append.ts';
import { benchCatchup } from './catchup.ts';
import { ADMIN_URL, type BenchOptions, dropLiveDatabases } from './support.ts';
import { benchWebhookLag } from './webhook-lag.ts';

const USAGE = `usage: npm run bench -- <name> [flags]

names:
  append    single-event appends from concurrent clients through PostgresEventStore vs pgbench running
            the equivalent two-insert transaction (bench/pgbench-append.sql), interleaved; target ratio >= 0.7
  catchup   readAll catch-up over a freshly loaded log vs the same SQL on a bare pg client; target >= 50,000 events/s
  webhooks  webhook end-to-end lag (append to receipt at a loopback receiver) at --rate events/s for
            --seconds per run (charges through the command layer, the gateway's own delivery worker);
            target p99 <= 1 s at 500 events/s
  all       append, then catchup, then webhooks

flags (environment variable in brackets):
  --seconds N        seconds per measured append run, each side            [BENCH_SECONDS]      default 10
  --runs N           measured runs per side; medians are quoted            [BENCH_RUNS]         default 3
  --clients N        concurrent append clients (pgbench -c)                [BENCH_CLIENTS]      default 32
  --pool N           gateway connection pool size                          [BENCH_POOL]         default 32
  --warmup N         seconds of discarded gateway appends before run 1     [BENCH_WARMUP]       default 2
  --events N         events loaded for catchup                             [BENCH_EVENTS]       default 200000
  --append-batch N   events per append while loading                       [BENCH_APPEND_BATCH] default 500
  --read-batches L   comma-separated readAll batch sizes                   [BENCH_READ_BATCHES] default 1000,5000
  --pgbench PATH     pgbench binary                                        [PGBENCH]            default /usr/bin/pgbench
  --rate N           events/s offered by the webhook lag benchmark         [BENCH_RATE]         default 500
  --out FILE         also write the raw results as JSON                    [BENCH_OUT]

server: ${ADMIN_URL} (BENCH_DATABASE_URL); each benchmark creates a fresh database there and drops it.`;

const FLAGS: Record<string, string> = {
  seconds: 'BENCH_SECONDS',
  runs: 'BENCH_RUNS',
  clients: 'BENCH_CLIENTS',
  pool: 'BENCH_POOL',
  warmup: 'BENCH_WARMUP',
  events: 'BENCH_EVENTS',
  'append-batch': 'BENCH_APPEND_BATCH',
  'read-batches': 'BENCH_READ_BATCHES',
  pgbench: 'PGBENCH',
  out: 'BENCH_OUT',
  rate: 'BENCH_RATE',
};

class UsageError extends Error {}

function parse(argv: readonly string[]): { name: string | undefined; opts: BenchOptions } {
  const values = new Map<string, string>();
  for (const [flag, env] of Object.entries(FLAGS)) {
    const v = process.env[env];
    if (v !== undefined && v !== '') values.set(flag, v);
  }
  let name: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg.startsWith('--')) {
      const [flag, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
      if (!(flag in FLAGS)) throw new UsageError(`unknown flag --${flag}`);
      const value = inline ?? argv[++i];
      if (value === undefined) throw new UsageError(`--${flag} needs a value`);
      values.set(flag, value);
    } else if (name === undefined) {
      name = arg;
    } else {
      throw new UsageError(`unexpected argument ${arg}`);
    }
  }
  const int = (flag: string, fallback: number, min: number, max: number): number => {
    const raw = values.get(flag);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new UsageError(`--${flag} must be an integer in ${min}..${max}, got ${raw}`);
    }
    return n;
  };
  const readBatches = (values.get('read-batches') ?? '1000,5000').split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n) || n < 1 || n > 100_000) throw new UsageError(`bad --read-batches entry ${s}`);
    return n;
  });
  return {
    name,
    opts: {
      seconds: int('seconds', 10, 1, 600),
      runs: int('runs', 3, 1, 20),
      clients: int('clients', 32, 1, 64),
      pool: int('pool', 32, 1, 64),
      warmup: int('warmup', 2, 0, 60),
      events: int('events', 200_000, 1, 5_000_000),
      appendBatch: int('append-batch', 500, 1, 10_000),
      readBatches,
      pgbench: values.get('pgbench') ?? '/usr/bin/pgbench',
      out: values.get('out'),
      rate: int('rate', 500, 1, 5_000),
    },
  };
}

async function main(): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n\n${USAGE}`);
    return 2;
  }
  const { name, opts } = parsed;
  if (name === undefined || name === 'help' || name === '--help') {
    console.log(USAGE);
    return name === undefined ? 2 : 0;
  }
  if (!['append', 'catchup', 'webhooks', 'all'].includes(name)) {
    console.error(`unknown benchmark ${name}\n\n${USAGE}`);
    return 2;
  }
  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`\n${signal}: dropping bench databases`);
    void dropLiveDatabases().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const started = new Date();
  const results: Record<string, unknown> = {
    started: started.toISOString(),
    argv: process.argv.slice(2),
    opts,
  };
  if (name === 'append' || name === 'all') results.append = await benchAppend(opts);
  if (name === 'catchup' || name === 'all') results.catchup = await benchCatchup(opts);
  if (name === 'webhooks' || name === 'all') results.webhooks = await benchWebhookLag(opts);
  console.log(`\ndone in ${((Date.now() - started.getTime()) / 1000).toFixed(0)} s`);
  if (opts.out) {
    writeFileSync(opts.out, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`results written to ${opts.out}`);
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  async (error: unknown) => {
    console.error(error);
    await dropLiveDatabases();
    process.exit(1);
  },
);
