import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { PAYER_ADDRESS } from '../test/support/charges.ts';
import {
  floorProcess,
  type GatewayProcess,
  type LoadRun,
  loadAverage,
  loadRun,
  type ServeProcess,
  startGatewayProcess,
} from './http-server.ts';
import { meterBackends } from './pg-backend-cpu.ts';
import {
  type BenchDatabase,
  type BenchOptions,
  createBenchDatabase,
  fmt,
  machine,
  median,
  pgbenchArgs,
  printRecord,
  printTable,
  runPgbench,
  serverSettings,
  settle,
  sleep,
} from './support.ts';
import { type WireFigures, wirePass } from './wire-pass.ts';

const SCRIPT = fileURLToPath(new URL('./pgbench-create-floor.sql', import.meta.url));
/** The floor sends each statement as a named prepared statement, parsed and planned once per connection. */
const PGBENCH_MODE = 'prepared';

export interface HttpBenchOptions {
  /** `serve --role` of the gateway process. */
  role: 'api' | 'all';
  /** Run the gateway under `node --cpu-prof`, profiles written here when it stops. */
  cpuProfDir: string | undefined;
}

/** A payer with every SPEC 4.1 customer field (the external provider's boleto requires them all). */
export const BENCH_CUSTOMER = {
  name: 'Maria Oliveira Santos',
  email: 'maria.oliveira@example.com.br',
  document: '39053344705',
  phone: '11987654321',
  address: PAYER_ADDRESS,
};

/** A SPEC 4.1 Pix body as an integrator sends it (every customer field, so the whole validation runs). */
export const PIX_BODY = JSON.stringify({
  amount: 12_990,
  reference: 'pedido-48213',
  description: 'Pedido 48213 - plano mensal',
  customer: BENCH_CUSTOMER,
});

export function pixHeaders(gateway: GatewayProcess): Record<string, string> {
  return { 'content-type': 'application/json', 'x-api-key': gateway.testKey };
}

export interface PgbenchRun {
  run: number;
  transactions: number;
  failed: number;
  rate: number;
  latencyAvg: number;
  /** CPU of the database's PostgreSQL backends per pgbench transaction (one creation's floor), µs. */
  pgCpuUs: number;
  commitsPerTransaction: number;
  load: string;
}

async function pgbenchRun(
  opts: BenchOptions,
  bench: BenchDatabase,
  tag: string,
  run: number,
): Promise<PgbenchRun> {
  const meter = await meterBackends(bench.name);
  const figures = await runPgbench(
    opts.pgbench,
    pgbenchArgs(opts, SCRIPT, tag, bench.url, PGBENCH_MODE),
    opts.seconds,
  );
  const backends = await meter.stop();
  return {
    run,
    ...figures,
    pgCpuUs: (backends.seconds * 1e6) / Math.max(1, figures.transactions),
    commitsPerTransaction: backends.commits / Math.max(1, figures.transactions),
    load: loadAverage(),
  };
}

export function describeRun(
  label: string,
  r: LoadRun,
  unit = 'requests/s',
  server: 'gateway' | 'floor' = 'gateway',
): string {
  const other = Object.entries(r.statuses)
    .filter(([k]) => !k.startsWith('2'))
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ');
  return (
    `${label}: ${fmt(r.rate)} ${unit} (${r.ok} 2xx in ${fmt(r.seconds, 1)} s; non-2xx ${r.non2xx}${other ? ` [${other}]` : ''}, ` +
    `errors ${r.errors}, timeouts ${r.timeouts}; p50 ${fmt(r.p50, 2)} ms, p99 ${fmt(r.p99, 2)} ms; ` +
    `CPU per request: ${server} ${fmt(r.serverCpuUs)} µs + PostgreSQL ${fmt(r.pgCpuUs)} µs = ${fmt(r.totalCpuUs)} µs; ` +
    `${fmt(r.commitsPerRequest, 2)} commits/req; load ${r.load})`
  );
}

export interface CreateReport {
  gateway: LoadRun[];
  pgbench: PgbenchRun[];
  medianGateway: number;
  medianPgbench: number;
  ratio: number;
  p50: number;
  p99: number;
  payload: { side: string; type: string; events: number; dataBytes: number; metadataBytes: number }[];
  /** Round trips, write commits and statements per creation (counting pass). */
  wire?: WireFigures | undefined;
  medianCpuUs: number;
  medianPgbenchCpuUs: number;
  /** The floor server's runs (bench/floor-server.ts), interleaved with the gateway's and pgbench's. */
  floor: LoadRun[];
  medianFloorCpuUs: number;
}

/**
 * The start of an HTTP benchmark (B1, B2): the machine and server settings printed, a fresh bench database,
 * a bootstrapped gateway process on it. The caller stops the gateway and drops the database.
 */
export async function startHttpBench(
  title: string,
  opts: BenchOptions,
  http: HttpBenchOptions,
  /** Added to the gateway's environment (e.g. the card bench's CREDENTIALS_ENCRYPTION_KEY). */
  env: Record<string, string> = {},
): Promise<{ bench: BenchDatabase; gateway: GatewayProcess }> {
  console.log(
    `\n## ${title}, ${opts.clients} connections, ${opts.seconds} s per run, ${opts.runs} runs per side`,
  );
  printRecord('machine', machine());
  printRecord('postgres', await serverSettings());
  console.log(`load average at start: ${loadAverage()}`);
  const bench = await createBenchDatabase(2, false);
  try {
    const gateway = await startGatewayProcess({
      databaseUrl: bench.url,
      pool: opts.pool,
      role: http.role,
      cpuProfDir: http.cpuProfDir,
      env,
    });
    console.log(
      `gateway tree ${process.env.BENCH_GATEWAY_ROOT ?? '(this one)'}; database ${bench.name}; gateway pid ${gateway.pid} (serve --role ${http.role}, pool ${opts.pool}) at ${gateway.url}`,
    );
    return { bench, gateway };
  } catch (error) {
    await bench.drop();
    throw error;
  }
}

/** Results-table columns of a load run, after the run number: `<label> 2xx/s`, errors, latency, CPU, load. */
export function loadRunColumns(label: string): string[] {
  return [
    `${label} 2xx/s`,
    'non-2xx',
    'errors',
    'p50',
    'p99',
    'gateway CPU',
    'PG CPU',
    'CPU/req',
    'commits/req',
    'client CPU',
    'load',
  ];
}

/**
 * The floor server (bench/floor-server.ts, BENCHMARKS.md "Issue 14: the floor of a whole request") on the
 * bench database, beside the gateway; the caller stops it.
 */
export async function startFloor(
  bench: BenchDatabase,
  opts: BenchOptions,
  env: Record<string, string> = {},
  cpuProfDir?: string,
): Promise<ServeProcess> {
  const floor = await floorProcess(bench.url, opts.pool, env, cpuProfDir);
  console.log(`floor server pid ${floor.pid} (pool ${opts.pool}) at ${floor.url}`);
  return floor;
}

/** Results-table columns of the floor side (appended after the existing ones). */
export const FLOOR_COLUMNS = [
  'floor 2xx/s',
  'floor p50',
  'floor p99',
  'floor proc CPU',
  'floor PG CPU',
  'floor CPU/req',
  'gateway/floor CPU',
];

export function floorCells(floor: LoadRun | undefined, gateway: LoadRun): string[] {
  if (!floor) return FLOOR_COLUMNS.map(() => '-');
  return [
    fmt(floor.rate),
    fmt(floor.p50, 2),
    fmt(floor.p99, 2),
    fmt(floor.serverCpuUs),
    fmt(floor.pgCpuUs),
    fmt(floor.totalCpuUs),
    fmt(gateway.totalCpuUs / floor.totalCpuUs, 2),
  ];
}

/** One line: the floor's medians and the gateway's CPU per request as a multiple of the floor's. */
export function floorSummary(what: string, floor: LoadRun[], gateway: LoadRun[]): string {
  const m = (runs: LoadRun[], f: (r: LoadRun) => number) => median(runs.map(f));
  const g = m(gateway, (r) => r.totalCpuUs);
  const f = m(floor, (r) => r.totalCpuUs);
  return (
    `median floor server (${what}): ${fmt(m(floor, (r) => r.rate))} requests/s (p50 ${fmt(
      m(floor, (r) => r.p50),
      2,
    )} ms, ` +
    `p99 ${fmt(
      m(floor, (r) => r.p99),
      2,
    )} ms), CPU per request ${fmt(f)} µs (floor process ${fmt(m(floor, (r) => r.serverCpuUs))} + ` +
    `PostgreSQL ${fmt(m(floor, (r) => r.pgCpuUs))}); gateway ${fmt(g)} µs = ${fmt(g / f, 2)} × the floor ` +
    `(gateway process ${fmt(m(gateway, (r) => r.serverCpuUs) / m(floor, (r) => r.serverCpuUs), 2)} ×, PostgreSQL ${fmt(m(gateway, (r) => r.pgCpuUs) / m(floor, (r) => r.pgCpuUs), 2)} ×)`
  );
}

/** Waits (up to 10 s) until the floor server holds no connection to the bench database. */
async function floorBackendsGone(bench: BenchDatabase): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const { rows } = await sql<{ n: string }>`
      select count(*) as n from pg_stat_activity
      where datname = current_database() and application_name = 'calebe-floor'`.execute(bench.db);
    if (Number(rows[0]?.n) === 0) return;
    await sleep(100);
  }
}

export function loadRunCells(r: LoadRun): string[] {
  return [
    fmt(r.rate),
    String(r.non2xx),
    String(r.errors),
    fmt(r.p50, 2),
    fmt(r.p99, 2),
    fmt(r.serverCpuUs),
    fmt(r.pgCpuUs),
    fmt(r.totalCpuUs),
    fmt(r.commitsPerRequest, 2),
    fmt(r.clientCpuUs),
    r.load,
  ];
}

/**
 * The raw runs of two sides `a` and `b` beside `/health`, with a/b CPU per run, printed; answers the medians of
 * the runs' ratios (whole CPU and gateway alone).
 */
export function printPairedRuns(
  names: readonly [string, string],
  a: readonly LoadRun[],
  b: readonly LoadRun[],
  health: readonly LoadRun[],
): { ratio: number; gatewayRatio: number } {
  const pairs = a.map((x, i) => ({ x, y: b[i] as LoadRun, h: health[i] as LoadRun }));
  const ratio = `${names[0]}/${names[1]}`;
  console.log('\nraw runs (latency in ms; CPU in µs per 2xx request):\n');
  printTable(
    [
      'run',
      ...loadRunColumns(names[0]),
      ...loadRunColumns(names[1]),
      '/health CPU/req',
      `${ratio} CPU`,
      `${ratio} gateway CPU`,
    ],
    pairs.map(({ x, y, h }, i) => [
      String(i + 1),
      ...loadRunCells(x),
      ...loadRunCells(y),
      fmt(h.totalCpuUs),
      fmt(x.totalCpuUs / y.totalCpuUs, 2),
      fmt(x.serverCpuUs / y.serverCpuUs, 2),
    ]),
  );
  return {
    ratio: median(pairs.map(({ x, y }) => x.totalCpuUs / y.totalCpuUs)),
    gatewayRatio: median(pairs.map(({ x, y }) => x.serverCpuUs / y.serverCpuUs)),
  };
}

export async function benchCreatePix(opts: BenchOptions, http: HttpBenchOptions): Promise<CreateReport> {
  const { bench, gateway } = await startHttpBench('create (B1): POST /v1/pix', opts, http);
  let floor: ServeProcess | undefined;
  try {
    // pgbench opens --clients connections of its own: the floor's close within a second once idle.
    floor = await startFloor(bench, opts, { FLOOR_IDLE_MS: '1000' }, http.cpuProfDir);
    console.log(
      `pgbench command: ${opts.pgbench} ${pgbenchArgs(opts, SCRIPT, '<tag>', '<database url>', PGBENCH_MODE).join(' ')}`,
    );
    const keyPrefix = `b1-${randomBytes(4).toString('hex')}`;
    let seq = 0;
    const spec = {
      url: gateway.url,
      method: 'POST' as const,
      path: '/v1/pix',
      headers: pixHeaders(gateway),
      body: PIX_BODY,
      perRequestHeaders: () => ({ 'idempotency-key': `${keyPrefix}-${seq++}` }),
      connections: opts.clients,
      server: gateway,
      database: bench.name,
    };
    const floorSpec = {
      ...spec,
      url: floor.url,
      perRequestHeaders: () => ({ 'idempotency-key': `${keyPrefix}-floor-${seq++}` }),
      server: floor,
    };
    // One answer of each, to check the floor writes a body of the real answer's size.
    const sizes: string[] = [];
    for (const [side, url] of [
      ['gateway', gateway.url],
      ['floor', floor.url],
    ] as const) {
      const res = await fetch(`${url}/v1/pix`, {
        method: 'POST',
        headers: { ...pixHeaders(gateway), 'idempotency-key': `${keyPrefix}-size-${side}` },
        body: PIX_BODY,
      });
      const text = await res.text();
      if (res.status !== 201) throw new Error(`${side} answered ${res.status}: ${text.slice(0, 200)}`);
      sizes.push(`${side} ${res.status}, ${Buffer.byteLength(text)} bytes`);
    }
    console.log(`one creation each: ${sizes.join('; ')}`);
    if (opts.warmup > 0) {
      const w = await loadRun({ ...spec, seconds: opts.warmup });
      console.log(describeRun('warm-up (discarded)', w));
      const wf = await loadRun({ ...floorSpec, seconds: opts.warmup });
      console.log(describeRun('warm-up floor (discarded)', wf, 'requests/s', 'floor'));
    }
    const runs: LoadRun[] = [];
    const pgbench: PgbenchRun[] = [];
    const floorRuns: LoadRun[] = [];
    for (let run = 1; run <= opts.runs; run++) {
      const order =
        run % 2 === 1
          ? (['gateway', 'floor', 'pgbench'] as const)
          : (['pgbench', 'floor', 'gateway'] as const);
      for (const side of order) {
        await settle(bench);
        if (side === 'floor') {
          // Its connections were handed back for pgbench (FLOOR_IDLE_MS): one discarded second opens and
          // prepares them again, so the measured run does not count connection set-up the gateway's skips.
          await loadRun({ ...floorSpec, seconds: 1 });
          const r = await loadRun({ ...floorSpec, seconds: opts.seconds });
          floorRuns.push(r);
          console.log(describeRun(`run ${run} floor`, r, 'requests/s', 'floor'));
        } else if (side === 'gateway') {
          const r = await loadRun({ ...spec, seconds: opts.seconds });
          runs.push(r);
          console.log(describeRun(`run ${run} gateway`, r));
        } else {
          await floorBackendsGone(bench);
          const p = await pgbenchRun(opts, bench, `r${run}`, run);
          pgbench.push(p);
          console.log(
            `run ${run} pgbench: ${fmt(p.rate)} tps (${p.transactions} transactions, ${p.failed} failed; latency avg ${fmt(p.latencyAvg, 2)} ms; PostgreSQL CPU ${fmt(p.pgCpuUs)} µs and ${fmt(p.commitsPerTransaction, 2)} commits per transaction; load ${p.load})`,
          );
        }
      }
    }
    const { rows } = await sql<{
      side: string;
      type: string;
      events: string;
      data_bytes: string;
      metadata_bytes: string;
    }>`
      select case when coalesce(data->>'resource_id', data->>'transaction_id') like 'txn\_pgb\_%'
          then 'pgbench' when coalesce(data->>'resource_id', data->>'transaction_id') like 'txn\_flr\_%'
          then 'floor' else 'gateway' end as side, type,
        count(*) as events, round(avg(octet_length(data::text))) as data_bytes,
        round(avg(octet_length(metadata::text))) as metadata_bytes
      from events where type in ('Idempotency.Claimed', 'Transaction.Reserved', 'Transaction.Issued')
        and (stream_id like 'transaction-%' or data->>'route' = '/v1/pix')
      group by 1, 2 order by 2, 1`.execute(bench.db);
    const payload = rows.map((r) => ({
      side: r.side,
      type: r.type,
      events: Number(r.events),
      dataBytes: Number(r.data_bytes),
      metadataBytes: Number(r.metadata_bytes),
    }));
    const medianGateway = median(runs.map((r) => r.rate));
    const medianPgbench = median(pgbench.map((p) => p.rate));
    const report: CreateReport = {
      gateway: runs,
      pgbench,
      medianGateway,
      medianPgbench,
      ratio: medianGateway / medianPgbench,
      p50: median(runs.map((r) => r.p50)),
      p99: median(runs.map((r) => r.p99)),
      payload,
      medianCpuUs: median(runs.map((r) => r.totalCpuUs)),
      medianPgbenchCpuUs: median(pgbench.map((p) => p.pgCpuUs)),
      floor: floorRuns,
      medianFloorCpuUs: median(floorRuns.map((r) => r.totalCpuUs)),
    };
    console.log('\nraw runs (latency in ms; CPU in µs per 2xx request):\n');
    printTable(
      [
        'run',
        ...loadRunColumns('gateway'),
        'pgbench tps',
        'pgbench lat avg',
        'pgbench PG CPU',
        'pgbench load',
        'ratio',
        ...FLOOR_COLUMNS,
      ],
      runs.map((g, i) => {
        const p = pgbench[i];
        return [
          String(i + 1),
          ...loadRunCells(g),
          p ? fmt(p.rate) : '-',
          p ? fmt(p.latencyAvg, 2) : '-',
          p ? fmt(p.pgCpuUs) : '-',
          p ? p.load : '-',
          p ? fmt(g.rate / p.rate, 2) : '-',
          ...floorCells(floorRuns[i], g),
        ];
      }),
    );
    console.log('\nevents stored per side (jsonb text bytes, average):\n');
    printTable(
      ['side', 'type', 'events', 'data bytes', 'metadata bytes'],
      payload.map((p) => [p.side, p.type, p.events, p.dataBytes, p.metadataBytes]),
    );
    report.wire = (
      await wirePass(
        bench.url,
        {
          'POST /v1/pix': {
            method: 'POST',
            path: '/v1/pix',
            headers: pixHeaders(gateway),
            body: PIX_BODY,
            perRequestHeaders: () => ({ 'idempotency-key': `${keyPrefix}-wire-${seq++}` }),
          },
        },
        { role: http.role },
      )
    )['POST /v1/pix'];
    console.log(
      `\nmedian gateway ${fmt(medianGateway)} creations/s (p50 ${fmt(report.p50, 2)} ms, p99 ${fmt(report.p99, 2)} ms), ` +
        `median pgbench ${fmt(medianPgbench)} tps, ratio ${fmt(report.ratio, 2)} (target >= 0.5, p99 <= 25 ms); ` +
        `median CPU per creation ${fmt(report.medianCpuUs)} µs (gateway ${fmt(median(runs.map((r) => r.serverCpuUs)))} + PostgreSQL ${fmt(median(runs.map((r) => r.pgCpuUs)))}; target <= 2,500), ` +
        `floor's PostgreSQL CPU ${fmt(report.medianPgbenchCpuUs)} µs per creation`,
    );
    console.log(floorSummary('the same creation on bare node:http + pg + ioredis', floorRuns, runs));
    return report;
  } finally {
    await floor?.stop();
    await gateway.stop();
    await bench.drop();
  }
}
