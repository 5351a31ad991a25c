/**
 * Issue 7 B5: `GET /admin/summary?days=365` over the seeded 1,000,000+ charges, through the real gateway
 * over HTTP with a panel session (super_admin: every tenant; and rooted at the primary tenant). Target
 * p50 <= 50 ms. Reference in the same run: the route's two queries (the grouped window over
 * `summary_transactions`, the tenant counts) on a bare `pg` pool with the same concurrency. Closed loop,
 * sides alternating, medians over `--runs`; `EXPLAIN (ANALYZE, BUFFERS)` of each variant's main query.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { Agent, request } from 'undici';
import { benchGateway, explain, type SideRun, summarize } from './list.ts';
import type { SeededDatabase } from './seed.ts';
import { type BenchOptions, closedLoop, fmt, median, printTable } from './support.ts';

const ADMIN = { email: 'bench-admin@calebe.local', password: 'bench admin password 123' };
const DAY_MS = 86_400_000;

interface SummaryVariant {
  name: string;
  query: string;
  /** The route's queries for "now" (the window moves with the clock, as the route's does). */
  statements: (now: Date) => { text: string; params: unknown[] }[];
}

export interface SummaryResult {
  variant: string;
  gateway: SideRun[];
  reference: SideRun[];
  plan: string;
}

function variants(db: SeededDatabase): SummaryVariant[] {
  const window = (days: number, root: string | undefined) => (now: Date) => {
    const scope = (column: string, n: number) =>
      root === undefined
        ? 'true'
        : `${column} in (select id from tenants where ancestor_ids @> array[$${n}]::text[])`;
    const from = new Date(now.getTime() - days * DAY_MS);
    return [
      {
        text: `select created_day::text as "day", "status", count(*) as "n", coalesce(sum(amount), 0) as "amount",
          count(paid_at) as "paid_n", coalesce(sum(amount) filter (where paid_at is not null), 0) as "paid_amount"
          from "summary_transactions" where ${scope('"summary_transactions"."tenant_id"', 4)} and "livemode" = $1
          and "created_at" >= $2 and "created_at" <= $3 group by "created_day", "status"`,
        params: root === undefined ? [true, from, now] : [true, from, now, root],
      },
      {
        text: `select "status", count(*) as "n" from "tenants" where ${scope('"tenants"."id"', 1)} group by "status"`,
        params: root === undefined ? [] : [root],
      },
    ];
  };
  return [
    { name: 'days=365 (super_admin, every tenant)', query: 'days=365', statements: window(365, undefined) },
    {
      name: 'days=365&tenant_id=<primary> (its subtree)',
      query: `days=365&tenant_id=${db.primary.id}`,
      statements: window(365, db.primary.id),
    },
    { name: 'days=30 (super_admin)', query: 'days=30', statements: window(30, undefined) },
  ];
}

export async function benchSummary(opts: BenchOptions, db: SeededDatabase): Promise<SummaryResult[]> {
  const { gateway, base } = await benchGateway(db, {
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
    const list = variants(db);
    const call = (v: SummaryVariant) => async () => {
      const res = await request(`${base}/admin/summary?${v.query}`, {
        headers: { authorization: auth },
        dispatcher: agent,
      });
      const body = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${v.name}: ${res.statusCode} ${body.slice(0, 200)}`);
    };
    const direct = (v: SummaryVariant) => async () => {
      for (const s of v.statements(new Date())) await pool.query(s.text, s.params);
    };
    for (const v of list) {
      await closedLoop(opts.concurrency, 1, call(v));
      await closedLoop(opts.concurrency, 1, direct(v));
    }
    const results: SummaryResult[] = list.map((v) => ({
      variant: v.name,
      gateway: [],
      reference: [],
      plan: '',
    }));
    for (let run = 1; run <= opts.runs; run++) {
      for (const [i, v] of list.entries()) {
        const r = results[i] as SummaryResult;
        const gatewayFirst = (run + i) % 2 === 1;
        for (const side of gatewayFirst ? ['gateway', 'reference'] : ['reference', 'gateway']) {
          if (side === 'gateway')
            r.gateway.push(summarize(await closedLoop(opts.concurrency, opts.duration, call(v))));
          else r.reference.push(summarize(await closedLoop(opts.concurrency, opts.duration, direct(v))));
        }
      }
    }
    for (const [i, v] of list.entries()) {
      const [main] = v.statements(new Date());
      if (main) (results[i] as SummaryResult).plan = await explain(pool, main.text, main.params);
    }
    printTable(
      [
        'variant',
        'gateway p50 ms',
        'gateway p99 ms',
        'gateway req/s',
        'bare SQL p50 ms',
        'bare SQL p99 ms',
        'p50 ratio',
        'runs p50 (gateway)',
      ],
      results.map((r) => {
        const gp50 = median(r.gateway.map((s) => s.p50));
        const rp50 = median(r.reference.map((s) => s.p50));
        return [
          r.variant,
          fmt(gp50, 1),
          fmt(median(r.gateway.map((s) => s.p99)), 1),
          fmt(median(r.gateway.map((s) => s.perSecond)), 1),
          fmt(rp50, 1),
          fmt(median(r.reference.map((s) => s.p99)), 1),
          fmt(gp50 / rp50, 2),
          r.gateway.map((s) => fmt(s.p50, 1)).join(' / '),
        ];
      }),
    );
    console.log('\ntarget: p50 <= 50 ms. Plans of the grouped window query (EXPLAIN (ANALYZE, BUFFERS)):');
    for (const r of results) console.log(`\n-- ${r.variant}\n${r.plan}`);
    return results;
  } finally {
    await agent.close();
    await pool.end();
    await gateway.close();
  }
}
