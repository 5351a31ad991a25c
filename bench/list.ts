import pg from 'pg';
import { Agent, request } from 'undici';
import { createGateway, type Gateway } from '../src/app.ts';
import { issueApiKey } from '../src/commands/api-keys/issue/handler.ts';
import { type ListFilters, listQuery } from '../src/commands/transactions/list/list-query.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { floorProcess, type ServeProcess, serveProcess } from './http-server.ts';
import { meterBackends } from './pg-backend-cpu.ts';
import { DOCUMENT_SIGNING_SECRET, type SeededDatabase } from './seed.ts';
import { type BenchOptions, closedLoop, fmt, median, percentile, printTable } from './support.ts';

export interface Variant {
  name: string;
  /** Query string after `limit=100`. */
  query: string;
  /** The list's SQL (as the route builds it) and its parameters. */
  sql: string;
  params: unknown[];
}

export interface SideRun {
  p50: number;
  p99: number;
  perSecond: number;
  n: number;
  /** Gateway process + PostgreSQL backends CPU per request, µs (gateway side only; issue 14). */
  cpuUs?: number;
  gatewayCpuUs?: number;
  pgCpuUs?: number;
}

/** `closedLoop` with the CPU per request of the served gateway and of the database's backends. */
export async function meteredLoop(
  server: { cpuSeconds(): number },
  database: string,
  concurrency: number,
  seconds: number,
  fn: () => Promise<void>,
): Promise<SideRun> {
  const meter = await meterBackends(database);
  const cpu0 = server.cpuSeconds();
  const r = await closedLoop(concurrency, seconds, fn);
  const gateway = server.cpuSeconds() - cpu0;
  const backends = await meter.stop();
  const n = Math.max(1, r.latencies.length);
  return {
    ...summarize(r),
    cpuUs: ((gateway + backends.seconds) * 1e6) / n,
    gatewayCpuUs: (gateway * 1e6) / n,
    pgCpuUs: (backends.seconds * 1e6) / n,
  };
}

export interface VariantResult {
  variant: string;
  gateway: SideRun[];
  reference: SideRun[];
  /** `limit=100` only: the floor server (bench/floor-server.ts) answering the same page, same key. */
  floor?: SideRun[];
  plan: string;
}

/**
 * The gateway over the seeded database: `calebe serve --role api` as a child process answering HTTP (as
 * B1/B2 measure it: the load client's CPU never shares the server's event loop), and an in-process
 * gateway that never listens, for setup (keys, catch-up, compiling the routes' SQL).
 */
export async function benchGateway(
  db: SeededDatabase,
  extra: Record<string, string> = {},
  cpuProfDir?: string,
): Promise<{ gateway: Gateway; base: string; server: { cpuSeconds(): number }; close(): Promise<void> }> {
  const env = { DOCUMENT_SIGNING_SECRET, ENABLE_SIMULATOR: 'false', ...extra };
  const config = loadConfig({
    DATABASE_URL: db.url,
    DATABASE_POOL_SIZE: '4',
    RATE_LIMIT_PER_MINUTE: '10000000',
    LOG_LEVEL: 'warn',
    ...env,
  });
  const gateway = await createGateway(config, createLogger('warn'));
  try {
    const server = await serveProcess({ databaseUrl: db.url, pool: 20, role: 'api', env, cpuProfDir });
    return {
      gateway,
      base: server.url,
      server,
      async close() {
        await server.stop();
        await gateway.close();
      },
    };
  } catch (error) {
    await gateway.close();
    throw error;
  }
}

export function summarize(r: { latencies: number[]; perSecond: number }): SideRun {
  return {
    p50: percentile(r.latencies, 50),
    p99: percentile(r.latencies, 99),
    perSecond: r.perSecond,
    n: r.latencies.length,
  };
}

export async function explain(pool: pg.Pool, text: string, params: unknown[]): Promise<string> {
  const { rows } = await pool.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${text}`, params);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

async function variants(pool: pg.Pool, db: SeededDatabase): Promise<Variant[]> {
  const t = db.primary.id;
  const ref = await pool.query<{ reference: string }>(
    'select reference from transactions where tenant_id = $1 and livemode limit 1',
    [t],
  );
  const reference = ref.rows[0]?.reference ?? 'none';
  const cc = db.primary.costCenterIds[0] ?? 'cc_none';
  // The route's own SQL (src/commands/transactions/list/list-query.ts) for the same filters.
  const v = (name: string, query: string, filters: Partial<ListFilters>, subtree = false): Variant => {
    const statement = listQuery({ root: t, subtree, livemode: true }, { limit: 100, offset: 0, ...filters });
    return { name, query, sql: statement.sql, params: [...statement.parameters] };
  };
  return [
    v('limit=100', '', {}),
    v('status=paid', '&status=paid', { status: 'paid' }),
    v('status=refunded', '&status=refunded', { status: 'refunded' }),
    v('method=boleto', '&method=boleto', { method: 'boleto' }),
    v('reference', `&reference=${encodeURIComponent(reference)}`, { reference }),
    v('cost_center_id', `&cost_center_id=${cc}`, { cost_center_id: cc }),
    v('cost_center_id=unassigned', '&cost_center_id=unassigned', { cost_center_id: 'unassigned' }),
    v('include_descendants=true', '&include_descendants=true', {}, true),
    v('offset=1000', '&offset=1000', { offset: 1000 }),
    v('offset=10000', '&offset=10000', { offset: 10000 }),
  ];
}

export async function benchList(
  opts: BenchOptions,
  db: SeededDatabase,
  cpuProfDir?: string,
): Promise<VariantResult[]> {
  const { gateway, base, server, close } = await benchGateway(db, {}, cpuProfDir);
  const pool = new pg.Pool({ connectionString: db.url, max: opts.concurrency });
  const agent = new Agent({ connections: opts.concurrency, keepAliveTimeout: 60_000 });
  let floor: ServeProcess | undefined;
  try {
    // The floor of the whole request (BENCHMARKS.md "Issue 14: the floor of a whole request"), for limit=100.
    floor = await floorProcess(db.url, 20, {}, cpuProfDir);
    console.log(`floor server pid ${floor.pid} (pool 20) at ${floor.url}`);
    const floorUrl = floor.url;
    const deps = { store: gateway.ctx.store, registry: gateway.ctx.events, now: () => gateway.ctx.now() };
    const { key } = await issueApiKey(
      deps,
      {
        tenantId: db.primary.id,
        livemode: true,
        name: 'bench list',
        scopes: ['transactions:read'],
        accessProfile: 'standard',
        createdBy: 'system:bench',
      },
      { actor: 'system:bench' },
    );
    const live = await pool.query<{ n: string }>(
      'select count(*) as n from transactions where tenant_id = $1 and livemode',
      [db.primary.id],
    );
    console.log(
      `\nB3 list: tenant ${db.primary.id} holds ${fmt(db.primary.transactions)} transactions, ${fmt(Number(live.rows[0]?.n))} of them live (the key's mode); ${opts.concurrency} clients, ${opts.duration} s per variant and side, ${opts.runs} runs`,
    );
    const list = await variants(pool, db);
    const call = (v: Variant) => async () => {
      const res = await request(`${base}/v1/transactions?limit=100${v.query}`, {
        headers: { 'x-api-key': key },
        dispatcher: agent,
      });
      const body = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${v.name}: ${res.statusCode} ${body.slice(0, 200)}`);
    };
    const floorCall = async () => {
      const res = await request(`${floorUrl}/v1/transactions?limit=100`, {
        headers: { 'x-api-key': key },
        dispatcher: agent,
      });
      const body = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`floor: ${res.statusCode} ${body.slice(0, 200)}`);
    };
    const direct = (v: Variant) => async () => {
      await pool.query(v.sql, v.params);
    };
    // Warm-up: every variant once per side (plans cached, pages in memory), checked for a 200.
    for (const v of list) {
      await closedLoop(opts.concurrency, 0.5, call(v));
      await closedLoop(opts.concurrency, 0.5, direct(v));
    }
    await closedLoop(opts.concurrency, 0.5, floorCall);
    // Then the JIT's steady state (--warmup seconds of limit=100 on each server), as create and replay do.
    const first = list[0];
    if (opts.warmup > 0 && first) {
      await closedLoop(opts.concurrency, opts.warmup, call(first));
      await closedLoop(opts.concurrency, opts.warmup, floorCall);
    }
    const results: VariantResult[] = list.map((v) => ({
      variant: v.name,
      gateway: [],
      reference: [],
      plan: '',
    }));
    const floorSide = results[0] as VariantResult;
    floorSide.floor = [];
    const floorServer = floor;
    for (let run = 1; run <= opts.runs; run++) {
      for (const [i, v] of list.entries()) {
        const r = results[i] as VariantResult;
        const gatewayFirst = (run + i) % 2 === 1;
        const sides = gatewayFirst ? ['gateway', 'reference'] : ['reference', 'gateway'];
        // limit=100 (the first variant) also measures the floor server, between the other two sides.
        if (i === 0) sides.splice(1, 0, 'floor');
        for (const side of sides) {
          if (side === 'gateway')
            r.gateway.push(await meteredLoop(server, db.name, opts.concurrency, opts.duration, call(v)));
          else if (side === 'floor')
            floorSide.floor.push(
              await meteredLoop(floorServer, db.name, opts.concurrency, opts.duration, floorCall),
            );
          else r.reference.push(summarize(await closedLoop(opts.concurrency, opts.duration, direct(v))));
        }
      }
    }
    for (const [i, v] of list.entries())
      (results[i] as VariantResult).plan = await explain(pool, v.sql, v.params);
    printTable(
      [
        'variant',
        'gateway p50 ms',
        'gateway p99 ms',
        'gateway req/s',
        'bare SQL p50 ms',
        'bare SQL p99 ms',
        'p99 ratio',
        'runs p99 (gateway)',
        'CPU/req µs (gateway + PG)',
      ],
      results.map((r) => {
        const gp99 = median(r.gateway.map((s) => s.p99));
        const rp99 = median(r.reference.map((s) => s.p99));
        return [
          r.variant,
          fmt(median(r.gateway.map((s) => s.p50)), 2),
          fmt(gp99, 2),
          fmt(median(r.gateway.map((s) => s.perSecond))),
          fmt(median(r.reference.map((s) => s.p50)), 2),
          fmt(rp99, 2),
          fmt(gp99 / rp99, 2),
          r.gateway.map((s) => fmt(s.p99, 1)).join(' / '),
          `${fmt(median(r.gateway.map((s) => s.cpuUs ?? Number.NaN)))} (${fmt(median(r.gateway.map((s) => s.gatewayCpuUs ?? Number.NaN)))} + ${fmt(median(r.gateway.map((s) => s.pgCpuUs ?? Number.NaN)))})`,
        ];
      }),
    );
    const floorRuns = floorSide.floor;
    const m = (runs: SideRun[], f: (s: SideRun) => number | undefined) =>
      median(runs.map((s) => f(s) ?? Number.NaN));
    const gatewayCpu = m(floorSide.gateway, (s) => s.cpuUs);
    const floorCpu = m(floorRuns, (s) => s.cpuUs);
    console.log(
      `\nlimit=100 on the floor server (bare node:http + pg + ioredis: key lookup, rate limit, the same SQL, ` +
        `JSON.stringify of the rows): p50 ${fmt(
          m(floorRuns, (s) => s.p50),
          2,
        )} ms, p99 ${fmt(
          m(floorRuns, (s) => s.p99),
          2,
        )} ms ` +
        `(runs ${floorRuns.map((s) => fmt(s.p99, 1)).join(' / ')}), ${fmt(m(floorRuns, (s) => s.perSecond))} req/s; ` +
        `CPU per request ${fmt(floorCpu)} µs (floor process ${fmt(m(floorRuns, (s) => s.gatewayCpuUs))} + PostgreSQL ${fmt(m(floorRuns, (s) => s.pgCpuUs))}); ` +
        `gateway ${fmt(gatewayCpu)} µs = ${fmt(gatewayCpu / floorCpu, 2)} × the floor`,
    );
    console.log(
      '\ntarget: p99 <= 20 ms. Plans (EXPLAIN (ANALYZE, BUFFERS) of the bare SQL, after the runs):',
    );
    for (const [i, r] of results.entries()) {
      console.log(`\n-- ${r.variant}\n${list[i]?.sql}\n${r.plan}`);
    }
    return results;
  } finally {
    await floor?.stop();
    await agent.close();
    await pool.end();
    await close();
  }
}
