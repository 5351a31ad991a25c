/**
 * One side of bench/scheduler-ab.ts: the scheduler and the `POST /v1/boleto` reference measured with the gateway
 * code of the tree at `root` (this tree or a scratch copy of another commit), so both sides run the same
 * measurement. Prints one JSON line.
 *
 *   node --import tsx bench/scheduler-ab-child.ts <root> <count>
 */
import { pathToFileURL } from 'node:url';
import { boletoPoster } from './boleto-poster.ts';
import { meterBackends } from './pg-backend-cpu.ts';
import { createBenchDatabase, onDatabase } from './support.ts';

const [root, countArg] = process.argv.slice(2);
if (!root) throw new Error('usage: scheduler-ab-child.ts <root> <count>');
const count = Number(countArg ?? 5000);
const REFERENCE_REQUESTS = 2_000;
const from = (path: string) => import(pathToFileURL(`${root}/${path}`).href);

const { saoPauloDate } = await from('src/aggregates/subscription-calendar.ts');
const { createGateway } = await from('src/app.ts');
const { loadConfig } = await from('src/config.ts');
const { createLogger } = await from('src/logger.ts');
const { runDueSubscriptions } = await from('src/commands/subscriptions/schedule/run-due.ts');
const { boletoBody } = await from('test/support/charges.ts');
const { seedTenantAndKey } = await from('test/support/fixtures.ts');
const { seedSubscription } = await from('test/support/subscriptions.ts');

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

const bench = await createBenchDatabase(4, false);
await bench.close();
const gateway = await createGateway(
  loadConfig({
    DATABASE_URL: bench.url,
    ENABLE_SIMULATOR: 'true',
    DATABASE_POOL_SIZE: '20',
    DOCUMENT_SIGNING_SECRET: 'bench-document-signing-secret-0123456789abcdef',
    RATE_LIMIT_PER_MINUTE: '10000000',
  }),
  createLogger('warn'),
);
try {
  const { tenantId, key } = await seedTenantAndKey(gateway.ctx);
  const today = saoPauloDate(new Date());
  const post = await boletoPoster(gateway, key, JSON.stringify(boletoBody({ due_date: today })));
  const drain = async () => {
    let issued = 0;
    for (;;) {
      const r = await runDueSubscriptions(gateway.ctx, {
        now: new Date(),
        testClockId: null,
        batchSize: 500,
        concurrency: 8,
        holdMs: 60_000,
        metadata: { actor: 'system:bench' },
      });
      issued += r.advanced.reduce((n: number, a: { steps: unknown[] }) => n + a.steps.length, 0);
      if (r.claimed < 500) return issued;
    }
  };
  const seed = async (n: number) => {
    const queue = Array.from({ length: n }, (_, i) => i);
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
          await seedSubscription(gateway.ctx, tenantId, { first_due_date: today, amount: 1000 + (i % 1000) });
        }
      }),
    );
  };
  // Warm-up (JIT, plans): 200 requests and 200 cycles, discarded.
  for (let i = 0; i < 200; i++) await post();
  await seed(200);
  await drain();

  // The reference: POST /v1/boleto, 16 at a time.
  let left = REFERENCE_REQUESTS;
  let meter = await meterBackends(bench.name);
  let cpu = process.cpuUsage();
  let started = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (left-- > 0) await post();
    }),
  );
  const ref = {
    n: REFERENCE_REQUESTS,
    seconds: (performance.now() - started) / 1000,
    nodeMs: cpuMs(cpu),
    pgMs: (await meter.stop()).seconds * 1000,
  };

  await seed(count);
  meter = await meterBackends(bench.name);
  cpu = process.cpuUsage();
  started = performance.now();
  const issued = await drain();
  const seconds = (performance.now() - started) / 1000;
  const nodeMs = cpuMs(cpu);
  const pg = await meter.stop();
  const counted = await onDatabase(
    bench.url,
    `select count(*)::int as charges, count(distinct reference)::int as refs
     from transactions where reference like 'sub_%'`,
  );
  const { charges, refs } = counted.rows[0] as { charges: number; refs: number };
  if (charges !== count + 200 || refs !== charges) {
    throw new Error(
      `expected ${count + 200} cycle charges once each: ${charges} charges, ${refs} references`,
    );
  }
  console.log(
    JSON.stringify({
      ref,
      cycles: { n: issued, seconds, nodeMs, pgMs: pg.seconds * 1000, commits: pg.commits },
    }),
  );
} finally {
  await gateway.close();
  await bench.drop();
}
process.exit(0);
