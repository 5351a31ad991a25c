/**
 * Issue 7 B5: `GET /admin/summary?days=365` over the seeded 1,000,000+ charges, through the real gateway
 * over HTTP with a panel session (super_admin: every tenant; and rooted at the primary tenant). Target
 * p50 <= 50 ms. References in the same run, on a bare `pg` pool with the same concurrency: the route's
 * own two queries (compiled from `src/commands/summary/get/totals-query.ts`: the window over the
 * `summary_daily` rollup, the tenant counts), and the per-charge aggregate over `summary_transactions` the
 * route ran before the rollup (migration 0011), as the "before". Closed loop, sides rotating, medians over
 * `--runs`; `EXPLAIN (ANALYZE, BUFFERS)` of each variant's window query, both versions.
 */
import { performance } from 'node:perf_hooks';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { Agent, request } from 'undici';
import { tenantCountsQuery, windowTotalsQuery } from '../src/commands/summary/get/totals-query.ts';
import type { Database } from '../src/db/schema.ts';
import { benchGateway, explain, meteredLoop, type SideRun, summarize } from './list.ts';
import type { SeededDatabase } from './seed.ts';
import { type BenchOptions, closedLoop, fmt, median, printTable } from './support.ts';

const ADMIN = { email: 'bench-admin@calebe.local', password: 'bench admin password 123' };
const DAY_MS = 86_400_000;

type Statement = { text: string; params: readonly unknown[] };

interface SummaryVariant {
  name: string;
  query: string;
  /** The route's queries for "now" (the window moves with the clock, as the route's does). */
  rollup: (now: Date) => Statement[];
  /** The window as the route computed it before migration 0011: every charge of the window aggregated. */
  perCharge: (now: Date) => Statement[];
}

const SIDES = ['gateway', 'rollup SQL', 'per-charge SQL'] as const;
type Side = (typeof SIDES)[number];

export interface SummaryResult {
  variant: string;
  runs: Record<Side, SideRun[]>;
  plans: { rollup: string; perCharge: string };
}

function variants(db: SeededDatabase, kysely: Kysely<Database>): SummaryVariant[] {
  const compiled = (q: {
    compile: (db: Kysely<Database>) => { sql: string; parameters: readonly unknown[] };
  }) => {
    const c = q.compile(kysely);
    return { text: c.sql, params: c.parameters };
  };
  const window = (days: number, root: string | undefined) => ({
    rollup: (now: Date) => {
      const from = new Date(now.getTime() - days * DAY_MS);
      return [compiled(windowTotalsQuery(root, true, from, now)), compiled(tenantCountsQuery(kysely, root))];
    },
    perCharge: (now: Date) => {
      const from = new Date(now.getTime() - days * DAY_MS);
      const scope =
        root === undefined
          ? 'true'
          : 'tenant_id in (select id from tenants where ancestor_ids @> array[$4]::text[])';
      return [
        {
          text: `select created_day::text as day, status, count(*) as n, coalesce(sum(amount), 0) as amount,
            count(paid_at) as paid_n, coalesce(sum(amount) filter (where paid_at is not null), 0) as paid_amount
            from summary_transactions where ${scope} and livemode = $1
            and created_at >= $2 and created_at <= $3 group by created_day, status`,
          params: root === undefined ? [true, from, now] : [true, from, now, root],
        },
        compiled(tenantCountsQuery(kysely, root)),
      ];
    },
  });
  return [
    { name: 'days=365 (super_admin, every tenant)', query: 'days=365', ...window(365, undefined) },
    {
      name: 'days=365&tenant_id=<primary> (its subtree)',
      query: `days=365&tenant_id=${db.primary.id}`,
      ...window(365, db.primary.id),
    },
    { name: 'days=30 (super_admin)', query: 'days=30', ...window(30, undefined) },
  ];
}

export async function benchSummary(opts: BenchOptions, db: SeededDatabase): Promise<SummaryResult[]> {
  const { gateway, base, server, close } = await benchGateway(db, {
    BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
    BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    BCRYPT_COST: '4',
  });
  const pool = new pg.Pool({ connectionString: db.url, max: opts.concurrency });
  const agent = new Agent({ connections: opts.concurrency, keepAliveTimeout: 60_000 });
  try {
    // The summary read model is async: make sure it has the whole log before measuring.
    const caughtUp = performance.now();
    const behind = await gateway.runner.catchUpTogether(gateway.runner.projections);
    if (behind > 0) {
      const secs = (performance.now() - caughtUp) / 1000;
      console.log(`async read models were behind: caught up ${fmt(behind)} events in ${fmt(secs, 1)} s`);
    }
    const login = await request(`${base}/admin/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
      dispatcher: agent,
    });
    const session = (await login.body.json()) as { data?: { token: string } };
    if (!session.data) throw new Error(`login failed: ${login.statusCode} ${JSON.stringify(session)}`);
    const auth = `Bearer ${session.data.token}`;
    const rows = await pool.query<{ n: string }>('select count(*) as n from summary_transactions');
    console.log(
      `\nB5 summary: ${fmt(Number(rows.rows[0]?.n))} rows in summary_transactions; ${opts.concurrency} clients, ${opts.duration} s per variant and side, ${opts.runs} runs`,
    );
    const list = variants(db, gateway.ctx.db);
    const call = (v: SummaryVariant) => async () => {
      const res = await request(`${base}/admin/summary?${v.query}`, {
        headers: { authorization: auth },
        dispatcher: agent,
      });
      const body = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${v.name}: ${res.statusCode} ${body.slice(0, 200)}`);
    };
    const direct = (statements: (now: Date) => Statement[]) => async () => {
      for (const s of statements(new Date())) await pool.query(s.text, [...s.params]);
    };
    const load: Record<Side, (v: SummaryVariant) => () => Promise<void>> = {
      gateway: call,
      'rollup SQL': (v) => direct(v.rollup),
      'per-charge SQL': (v) => direct(v.perCharge),
    };
    for (const v of list) for (const side of SIDES) await closedLoop(opts.concurrency, 1, load[side](v));
    const results: SummaryResult[] = list.map((v) => ({
      variant: v.name,
      runs: { gateway: [], 'rollup SQL': [], 'per-charge SQL': [] },
      plans: { rollup: '', perCharge: '' },
    }));
    for (let run = 1; run <= opts.runs; run++) {
      for (const [i, v] of list.entries()) {
        const r = results[i] as SummaryResult;
        // The side order rotates per run and variant, so drift hits every side.
        const shift = (run + i) % SIDES.length;
        for (const side of [...SIDES.slice(shift), ...SIDES.slice(0, shift)]) {
          r.runs[side].push(
            side === 'gateway'
              ? await meteredLoop(server, db.name, opts.concurrency, opts.duration, load[side](v))
              : summarize(await closedLoop(opts.concurrency, opts.duration, load[side](v))),
          );
        }
      }
    }
    for (const [i, v] of list.entries()) {
      const now = new Date();
      const [rollup] = v.rollup(now);
      const [perCharge] = v.perCharge(now);
      const r = results[i] as SummaryResult;
      if (rollup) r.plans.rollup = await explain(pool, rollup.text, [...rollup.params]);
      if (perCharge) r.plans.perCharge = await explain(pool, perCharge.text, [...perCharge.params]);
    }
    const p50 = (runs: SideRun[]) => median(runs.map((s) => s.p50));
    printTable(
      [
        'variant',
        'gateway p50 ms',
        'gateway p99 ms',
        'gateway req/s',
        'rollup SQL p50 / p99 ms',
        'per-charge SQL p50 ms (before 0011)',
        'gateway / rollup SQL',
        'runs p50 (gateway)',
        'CPU/req µs (gateway + PG)',
      ],
      results.map((r) => [
        r.variant,
        fmt(p50(r.runs.gateway), 1),
        fmt(median(r.runs.gateway.map((s) => s.p99)), 1),
        fmt(median(r.runs.gateway.map((s) => s.perSecond)), 1),
        `${fmt(p50(r.runs['rollup SQL']), 1)} / ${fmt(median(r.runs['rollup SQL'].map((s) => s.p99)), 1)}`,
        fmt(p50(r.runs['per-charge SQL']), 1),
        fmt(p50(r.runs.gateway) / p50(r.runs['rollup SQL']), 2),
        r.runs.gateway.map((s) => fmt(s.p50, 1)).join(' / '),
        `${fmt(median(r.runs.gateway.map((s) => s.cpuUs ?? Number.NaN)))} (${fmt(median(r.runs.gateway.map((s) => s.gatewayCpuUs ?? Number.NaN)))} + ${fmt(median(r.runs.gateway.map((s) => s.pgCpuUs ?? Number.NaN)))})`,
      ]),
    );
    console.log('\ntarget: p50 <= 50 ms. Plans of the window query (EXPLAIN (ANALYZE, BUFFERS)):');
    for (const r of results) {
      console.log(`\n-- ${r.variant}: the route (rollup)\n${r.plans.rollup}`);
      console.log(`\n-- ${r.variant}: per-charge aggregate (before 0011)\n${r.plans.perCharge}`);
    }
    return results;
  } finally {
    await agent.close();
    await pool.end();
    await close();
  }
}
