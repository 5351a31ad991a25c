/**
 * How many subscriptions the scheduler advances at once inside one run (issue 26 item 3: "bounded
 * concurrency … so 100,000 due cycles fit in 10 minutes on 2 cores"): seeds `--count` test-mode boleto
 * subscriptions due today on a fresh database, then drains them with the job's own code
 * (`runDueSubscriptions`, batch 500) at each concurrency of `--levels`, one fresh database per level, and
 * prints cycles issued per second and the process CPU per cycle. In-process, simulator, inline projections.
 *
 *   node --import tsx bench/scheduler-concurrency.ts [count] [levels, e.g. 1,4,8,16]
 */

import { saoPauloDate } from '../src/aggregates/subscription-calendar.ts';
import { createGateway } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { seedTenantAndKey } from '../test/support/fixtures.ts';
import { drainDue, seedDueSubscriptions } from './scheduler-support.ts';
import { createBenchDatabase, fmt, printTable } from './support.ts';

const count = Number(process.argv[2] ?? 2000);
const levels = (process.argv[3] ?? '1,4,8,16').split(',').map(Number);

async function level(concurrency: number): Promise<string[]> {
  const bench = await createBenchDatabase(4, true);
  await bench.close();
  const config = loadConfig({
    DATABASE_URL: bench.url,
    ENABLE_SIMULATOR: 'true',
    DATABASE_POOL_SIZE: '20',
    DOCUMENT_SIGNING_SECRET: 'bench-document-signing-secret-0123456789abcdef',
  });
  const gateway = await createGateway(config, createLogger('warn')).catch(async (error: unknown) => {
    await bench.drop();
    throw error;
  });
  try {
    const { tenantId } = await seedTenantAndKey(gateway.ctx);
    const today = saoPauloDate(new Date());
    await seedDueSubscriptions(gateway.ctx, tenantId, count, today);
    const cpu = process.cpuUsage();
    const started = performance.now();
    const issued = await drainDue(gateway.ctx, concurrency);
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000;
    return [
      String(concurrency),
      fmt(issued),
      fmt(seconds, 1),
      fmt(issued / seconds, 0),
      fmt(cpuMs / issued, 2),
      fmt(100_000 / (issued / seconds) / 60, 1),
    ];
  } finally {
    await gateway.close();
    await bench.drop();
  }
}

const rows: string[][] = [];
for (const c of levels) rows.push(await level(c));
printTable(
  ['concurrency', 'cycles', 'seconds', 'cycles/s', 'node CPU ms/cycle', 'minutes for 100,000'],
  rows,
);
process.exit(0);
