/**
 * The scheduler at scale (issue 26 item 8; BENCHMARKS.md "Issue 26: the scheduler at scale"):
 *  1. reference: `POST /v1/boleto` over loopback HTTP on the same process, CPU per request;
 *  2. `--count` test-mode boleto subscriptions (default 100,000) whose cycle falls due today, issued by one
 *     process with the job's own code (`runDueSubscriptions`, batch 500, concurrency 8, as the job runs),
 *     then counted: every reference `sub_<id>:<due>` exactly once, none missing;
 *  3. a tick over `--idle` subscriptions none of which is due (default 1,000,000 rows of the read model,
 *     written by SQL), median of three, with its plan (the partial index, never a scan).
 * The subscriptions of (2) are created by the decider on the real store (their first cycle is the scheduler's
 * here, so the run measures the scheduler alone). Several workers and crashes: chaos F10 (RELIABILITY.md).
 *
 *   node --import tsx bench/scheduler-scale.ts [count] [idle]
 */

import { saoPauloDate } from '../src/aggregates/subscription-calendar.ts';
import { createGateway } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { boletoBody } from '../test/support/charges.ts';
import { seedTenantAndKey } from '../test/support/fixtures.ts';
import { boletoPoster } from './boleto-poster.ts';
import { drainDue, schedulerRun, seedDueSubscriptions } from './scheduler-support.ts';
import { createBenchDatabase, fmt, idleTickRow, onDatabase, printTable } from './support.ts';

const count = Number(process.argv[2] ?? 100_000);
const idle = Number(process.argv[3] ?? 1_000_000);
const REFERENCE_REQUESTS = 2_000;

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

const bench = await createBenchDatabase(4, true);
await bench.close();
const config = loadConfig({
  DATABASE_URL: bench.url,
  ENABLE_SIMULATOR: 'true',
  DATABASE_POOL_SIZE: '20',
  DOCUMENT_SIGNING_SECRET: 'bench-document-signing-secret-0123456789abcdef',
  RATE_LIMIT_PER_MINUTE: '10000000',
});
const gateway = await createGateway(config, createLogger('warn'));
const rows: string[][] = [];
try {
  const { tenantId, key } = await seedTenantAndKey(gateway.ctx);
  const today = saoPauloDate(new Date());

  // 1. The reference: POST /v1/boleto, 16 at a time, CPU of this process per request (server and client).
  const post = await boletoPoster(gateway, key, JSON.stringify(boletoBody({ due_date: today })));
  let left = REFERENCE_REQUESTS;
  const refCpu = process.cpuUsage();
  const refStart = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (left-- > 0) await post();
    }),
  );
  const refMs = cpuMs(refCpu) / REFERENCE_REQUESTS;
  rows.push([
    'POST /v1/boleto (reference)',
    fmt(REFERENCE_REQUESTS),
    fmt((performance.now() - refStart) / 1000, 1),
    fmt(REFERENCE_REQUESTS / ((performance.now() - refStart) / 1000), 0),
    fmt(refMs, 2),
    '1.00',
  ]);

  // 2. `count` subscriptions due today, issued by one process.
  await seedDueSubscriptions(gateway.ctx, tenantId, count, today);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const issued = await drainDue(gateway.ctx, 8);
  const seconds = (performance.now() - started) / 1000;
  const perCycle = cpuMs(cpu) / issued;
  const counted = await onDatabase(
    bench.url,
    `select count(*)::int as charges, count(distinct reference)::int as refs
     from transactions where reference like 'sub_%'`,
  );
  const { charges, refs } = counted.rows[0] as { charges: number; refs: number };
  if (charges !== count || refs !== count) {
    throw new Error(
      `expected ${count} cycle charges once each, found ${charges} charges, ${refs} references`,
    );
  }
  rows.push([
    `${fmt(count)} cycles due today, one process`,
    fmt(issued),
    fmt(seconds, 1),
    fmt(issued / seconds, 0),
    fmt(perCycle, 2),
    fmt(perCycle / refMs, 2),
  ]);
  console.log(`every cycle once: ${fmt(charges)} charges, ${fmt(refs)} distinct references, 0 duplicates`);

  // 3. A tick over `idle` subscriptions of which none is due.
  await onDatabase(
    bench.url,
    `insert into subscriptions (id, tenant_id, livemode, status, method, name, customer_name, amount, description,
       first_due_date, next_due_date, interval_months, advance_days, cycle, created_at, updated_at, next_run_at)
     select 'sub_idle' || g, '${tenantId}', false, 'active', 'boleto', 'Plano', 'Maria', 1000, 'Mensalidade',
       '2027-01-31', '2027-01-31', 1, 0, 0, now(), now(), now() + interval '30 days' + (g || ' seconds')::interval
     from generate_series(1, ${idle}) g`,
  );
  await onDatabase(bench.url, 'analyze subscriptions');
  const ticks: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const r = await schedulerRun(gateway.ctx, 8);
    ticks.push(performance.now() - t);
    if (r.claimed !== 0) throw new Error(`an idle tick claimed ${r.claimed}`);
  }
  rows.push(
    await idleTickRow(
      bench.url,
      'subscriptions',
      'subscriptions',
      `select id from subscriptions where test_clock_id is null and next_run_at is not null
     and next_run_at <= now() order by next_run_at limit 500 for update skip locked`,
      ticks,
    ),
  );
} finally {
  await gateway.close();
  await bench.drop();
}
printTable(['run', 'cycles or requests', 'seconds', 'per second', 'CPU ms each', 'CPU / boleto'], rows);
process.exit(0);
