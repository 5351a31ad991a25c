/**
 * Benchmark dispatcher: `npm run bench -- <name> [flags]` (names in USAGE). Never part of `npm test`.
 * Every flag can also come from the environment (BENCH_SECONDS, BENCH_RUNS, …); flags win.
 * Results go to stdout as Markdown tables; BENCHMARKS.md records them with the exact commands.
 */
import { writeFileSync } from 'node:fs';
import { benchAppend } from './append.ts';
import { benchCatchup } from './catchup.ts';
import { benchCreateCard } from './create-card.ts';
import { benchCreatePix, type HttpBenchOptions } from './create-pix.ts';
import { benchFeeResolution } from './fee-resolution.ts';
import { parseFlags, runnerArguments, UsageError } from './flags.ts';
import { benchList } from './list.ts';
import { benchMarketplaceIssuance } from './marketplace-issuance.ts';
import { benchPayerPage, benchProfilePage } from './payer-page.ts';
import { benchProfileCard } from './profile-card.ts';
import { benchProfileCreate } from './profile-create.ts';
import { benchProfileReplay } from './profile-replay.ts';
import { benchRebuild } from './rebuild.ts';
import { benchReplay } from './replay.ts';
import { benchSeed, reportSeed, seededDatabase } from './seed.ts';
import { benchSummary } from './summary.ts';
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
  create    B1: POST /v1/pix (simulator, fresh Idempotency-Key per request) on a real gateway process
            (PostgreSQL + Redis on loopback) with autocannon at --clients connections vs pgbench writing the
            rows a creation must write in two prepared transactions (bench/pgbench-create-floor.sql, the
            floor), interleaved; CPU per request (gateway + PostgreSQL backends, from /proc), then a
            counting pass for round trips and write commits; target gateway/pgbench >= 0.5, p99 <= 25 ms,
            CPU <= 2.5 ms per creation. Also interleaved: the floor server (bench/floor-server.ts: bare
            node:http + pg + ioredis doing only the key lookup, rate limit and the two transactions), with
            its CPU per request and the gateway/floor CPU ratio
  create-card
            issue 25: POST /v1/credit-card (simulator, approved test card, fresh Idempotency-Key per request)
            vs POST /v1/pix (the same customer and amount) vs GET /health on one gateway process, interleaved;
            CPU per request (gateway + PostgreSQL backends) and the card/pix ratio of each run, then a
            counting pass; target card/pix <= 1.25 (the gateway gets a random CREDENTIALS_ENCRYPTION_KEY)
  fee-resolution
            issue 28 item 7: POST /v1/pix by a tenant at depth 5 (a Pix fee version at every level) vs depth 1
            vs GET /health on one gateway process, interleaved; CPU per request and the depth5/depth1 ratio,
            then a counting pass (the chain's fees are one read: no more round trips at depth 5)
  marketplace-issuance
            issue 28 item 7: POST /v1/boleto through a marketplace subaccount (sandbox marketplace on the
            provider emulator, run in the bench process; the tenant's link and its sandbox token) vs the same
            boleto on a plain external sandbox provider vs GET /health on one gateway process, interleaved;
            CPU per request and the marketplace/plain ratio, then a counting pass; target <= 1.2
  profile-create
            the create load for --seconds against a gateway under node --cpu-prof; prints the top functions
            by self time and self time by area (profile kept with --cpu-prof DIR)
  profile-card
            the create-card loads (card, Pix) in --runs interleaved pairs of --seconds against one gateway
            under node --cpu-prof; each side's samples summed over its own windows, set side by side per
            request (self time by area, own functions by inclusive time)
  profile-page
            the page load (bench page) for --seconds against a gateway under node --cpu-prof; summarized
            as profile-create
  profile-replay
            the replay load (one key and body) for --seconds against a gateway under node --cpu-prof;
            summarized as profile-create
  replay    B2: the same key and body replayed at --clients connections vs GET /v1/transactions/{id} of
            the same charge, GET /health (the HTTP stack alone) and the floor server replaying the same key
            (key lookup, rate limit, stored-record read, nothing else), interleaved; target >= 10,000
            requests/s, CPU <= 0.6 ms per replay
  page      issue 25: GET of the checkout payer page (one open checkout, pix + boleto) vs an authenticated
            GET /v1/transactions/{id} and GET /health on the same gateway process, interleaved bounded runs of
            --requests requests at --clients connections (default 16); the per-address page limit is passed
            behind TRUST_PROXY=loopback with one X-Forwarded-For address per request; target CPU per request
            <= 1.5 × the GET, p99 <= 20 ms
  seed      issue 7 item 1: \`calebe dev seed\` on a fresh database (--tenants, --transactions, --primary),
            timed as the command a developer runs; prints the database's shape
  list      B3: GET /v1/transactions?limit=100 and filtered variants over HTTP for the primary tenant
            (1,000,000 charges) vs the same SQL on a bare pg pool, and (limit=100) vs the floor server
            (key lookup, rate limit, the same SQL, the rows as JSON); EXPLAIN (ANALYZE, BUFFERS) of each;
            target p99 <= 20 ms
  rebuild   B4: \`calebe rebuild --all\` (a child process) over the seeded log vs reading the same log with
            the bare readAll SQL; plus every projection, inline ones included; target >= 20,000 events/s
  summary   B5: GET /admin/summary?days=365 over HTTP (panel session) vs the same SQL on a bare pg pool;
            target p50 <= 50 ms
  b345      seed once (like seed), then list, summary and rebuild on that database
  all       append, then catchup, then webhooks (not create/replay)

flags (environment variable in brackets):
  --seconds N        seconds per measured run, each side                   [BENCH_SECONDS]      default 10
  --runs N           measured runs per side; medians are quoted            [BENCH_RUNS]         default 3
  --clients N        append clients / HTTP connections (and pgbench -c)    [BENCH_CLIENTS]      default 32;
                     16 for page and profile-page
  --requests N       page: requests per bounded run                        [BENCH_REQUESTS]     default 3000
  --pool N           gateway pool size (create/replay: DATABASE_POOL_SIZE) [BENCH_POOL]         default 32
  --warmup N         seconds of discarded gateway load before run 1        [BENCH_WARMUP]       default 2;
                     20 for create, replay, list and the profiles (the JIT's steady state)
  --events N         events loaded for catchup                             [BENCH_EVENTS]       default 200000
  --append-batch N   events per append while loading                       [BENCH_APPEND_BATCH] default 500
  --read-batches L   comma-separated readAll batch sizes                   [BENCH_READ_BATCHES] default 1000,5000
  --pgbench PATH     pgbench binary                                        [PGBENCH]            default /usr/bin/pgbench
  --rate N           events/s offered by the webhook lag benchmark         [BENCH_RATE]         default 500
  --role R           create/replay: gateway 'serve --role' (api or all)    [BENCH_ROLE]         default api
  --cpu-prof DIR     create/replay/list/page: the gateway (and the floor server, in DIR/floor), rebuild: the
                     CLI, under node --cpu-prof                                                [BENCH_CPU_PROF]
  --out FILE         also write the raw results as JSON                    [BENCH_OUT]
  --tenants N        seed: tenants (a quarter roots)                       [BENCH_TENANTS]      default 12
  --transactions N   seed: charges in all                                  [BENCH_TRANSACTIONS] default 1100000
  --primary N        seed: charges of the primary tenant                   [BENCH_PRIMARY]      default 1000000
  --reuse DB         list/rebuild/summary/b345: measure this already seeded database (never dropped)
                                                                           [BENCH_REUSE]
  --keep 1           seed/b345: keep the seeded database for --reuse       [BENCH_KEEP]         default 0
  --concurrency N    list/summary: closed-loop clients                     [BENCH_CONCURRENCY]  default 4
  --duration N       list/summary: seconds per variant and side per run    [BENCH_DURATION]     default 3

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
  role: 'BENCH_ROLE',
  'cpu-prof': 'BENCH_CPU_PROF',
  tenants: 'BENCH_TENANTS',
  transactions: 'BENCH_TRANSACTIONS',
  primary: 'BENCH_PRIMARY',
  reuse: 'BENCH_REUSE',
  keep: 'BENCH_KEEP',
  concurrency: 'BENCH_CONCURRENCY',
  duration: 'BENCH_DURATION',
  requests: 'BENCH_REQUESTS',
};

/**
 * The HTTP benchmarks measure a served process in steady state: V8 was still compiling the gateway after
 * ~900 creations (its worker threads 19 % of its CPU, a creation ~2.3 ms) and much less after ~3,900
 * (10 %, ~1.6 ms; BENCHMARKS.md "Issue 14: gateway CPU per creation"), so they warm up for 20 s by default.
 */
const JIT_WARMUP_BENCHMARKS = new Set([
  'create',
  'create-card',
  'fee-resolution',
  'marketplace-issuance',
  'replay',
  'profile-create',
  'profile-card',
  'profile-replay',
  'list',
  'page',
]);

function httpRole(role: string): HttpBenchOptions['role'] {
  if (role !== 'api' && role !== 'all') throw new UsageError(`--role must be api or all, got ${role}`);
  return role;
}

function parse(argv: readonly string[]): {
  name: string | undefined;
  opts: BenchOptions;
  http: HttpBenchOptions;
  requests: number;
} {
  const flags = parseFlags(argv, FLAGS);
  const { name } = flags;
  const int = flags.int;
  const readBatches = (flags.get('read-batches') ?? '1000,5000').split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n) || n < 1 || n > 100_000) throw new UsageError(`bad --read-batches entry ${s}`);
    return n;
  });
  return {
    name,
    opts: {
      seconds: int('seconds', 10, 1, 600),
      runs: int('runs', 3, 1, 20),
      clients: int('clients', name === 'page' || name === 'profile-page' ? 16 : 32, 1, 64),
      pool: int('pool', 32, 1, 64),
      warmup: int('warmup', JIT_WARMUP_BENCHMARKS.has(name ?? '') ? 20 : 2, 0, 120),
      events: int('events', 200_000, 1, 5_000_000),
      appendBatch: int('append-batch', 500, 1, 10_000),
      readBatches,
      pgbench: flags.get('pgbench') ?? '/usr/bin/pgbench',
      out: flags.get('out'),
      rate: int('rate', 500, 1, 5_000),
      tenants: int('tenants', 12, 1, 10_000),
      transactions: int('transactions', 1_100_000, 1, 100_000_000),
      primary: int('primary', 1_000_000, 0, 100_000_000),
      reuse: flags.get('reuse'),
      keep: int('keep', 0, 0, 1) === 1,
      concurrency: int('concurrency', 4, 1, 256),
      duration: int('duration', 3, 1, 600),
    },
    http: { role: httpRole(flags.get('role') ?? 'api'), cpuProfDir: flags.get('cpu-prof') },
    requests: int('requests', 3000, 100, 1_000_000),
  };
}

async function main(): Promise<number> {
  const parsed = runnerArguments(USAGE, parse);
  if (typeof parsed === 'number') return parsed;
  const { name, opts, http, requests } = parsed;
  const known = [
    'append',
    'catchup',
    'webhooks',
    'create',
    'create-card',
    'fee-resolution',
    'marketplace-issuance',
    'profile-create',
    'profile-card',
    'profile-replay',
    'replay',
    'page',
    'profile-page',
    'all',
  ];
  if (![...known, 'seed', 'list', 'rebuild', 'summary', 'b345'].includes(name)) {
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
  if (name === 'seed') results.seed = (await benchSeed(opts)).seed;
  if (['list', 'rebuild', 'summary', 'b345'].includes(name)) {
    const db = await seededDatabase(opts);
    try {
      await reportSeed(db);
      results.seed = db.seed;
      if (name === 'list' || name === 'b345') results.list = await benchList(opts, db, http.cpuProfDir);
      if (name === 'summary' || name === 'b345') results.summary = await benchSummary(opts, db);
      if (name === 'rebuild' || name === 'b345')
        results.rebuild = await benchRebuild(opts, db, http.cpuProfDir);
    } finally {
      await db.drop();
    }
  }
  if (name === 'create') results.create = await benchCreatePix(opts, http);
  if (name === 'create-card') results.createCard = await benchCreateCard(opts, http);
  if (name === 'fee-resolution') results.feeResolution = await benchFeeResolution(opts, http);
  if (name === 'marketplace-issuance')
    results.marketplaceIssuance = await benchMarketplaceIssuance(opts, http);
  if (name === 'profile-card') results.profile = await benchProfileCard(opts, http);
  if (name === 'replay') results.replay = await benchReplay(opts, http);
  if (name === 'page') results.page = await benchPayerPage(opts, http, requests);
  if (name === 'profile-create') results.profile = await benchProfileCreate(opts, http);
  if (name === 'profile-page') results.profile = await benchProfilePage(opts, http);
  if (name === 'profile-replay') results.profile = await benchProfileReplay(opts, http);
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
