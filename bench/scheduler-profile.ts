/**
 * Where a scheduler cycle's time goes (issue 26 item 8): on a fresh database, in one process,
 *  1. a counting pass: `--wire` test-mode boleto subscriptions due today, drained by the job's own code
 *     (`runDueSubscriptions`, batch 500) one at a time through the counting relay (bench/pg-wire-counter.ts):
 *     round trips, write commits and statements per cycle;
 *  2. a profiled pass: `--count` more, drained at concurrency 8 directly, under the in-process V8 profiler
 *     (node:inspector): self time by area and the top functions, inclusive time of this tree's functions;
 *     Node CPU per cycle and PostgreSQL backend CPU per cycle (from /proc, bench/pg-backend-cpu.ts).
 *
 *   node --import tsx bench/scheduler-profile.ts [count=3000] [wire=200] [profile-out.cpuprofile]
 */

import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { saoPauloDate } from '../src/aggregates/subscription-calendar.ts';
import { createGateway } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { seedTenantAndKey } from '../test/support/fixtures.ts';
import { meterBackends } from './pg-backend-cpu.ts';
import { startWireCounter } from './pg-wire-counter.ts';
import { type CpuProfile, printProfile, summarizeProfile } from './profile-create.ts';
import { drainDue, seedDueSubscriptions } from './scheduler-support.ts';
import { createBenchDatabase, fmt, printTable } from './support.ts';

const count = Number(process.argv[2] ?? 3000);
const wire = Number(process.argv[3] ?? 200);
const out = process.argv[4];

const gatewayOn = (url: string) =>
  createGateway(
    loadConfig({
      DATABASE_URL: url,
      ENABLE_SIMULATOR: 'true',
      DATABASE_POOL_SIZE: '20',
      DOCUMENT_SIGNING_SECRET: 'bench-document-signing-secret-0123456789abcdef',
      RATE_LIMIT_PER_MINUTE: '10000000',
    }),
    createLogger('warn'),
  );

const bench = await createBenchDatabase(4, true);
await bench.close();
const today = saoPauloDate(new Date());
try {
  // 1. Counting pass, one subscription at a time through the relay.
  if (wire > 0) {
    const relay = await startWireCounter(bench.url);
    const gateway = await gatewayOn(relay.url);
    try {
      const { tenantId } = await seedTenantAndKey(gateway.ctx);
      await seedDueSubscriptions(gateway.ctx, tenantId, 20, today);
      await drainDue(gateway.ctx, 1);
      await seedDueSubscriptions(gateway.ctx, tenantId, wire, today);
      relay.reset();
      const issued = await drainDue(gateway.ctx, 1);
      const c = relay.counts;
      console.log(
        `\ncounting pass: ${issued} cycles one at a time: ${fmt(c.roundTrips / issued, 2)} round trips, ${fmt(c.writeCommits / issued, 2)} write commits, ${fmt(c.binds / issued, 2)} binds, ${fmt(c.simpleQueries / issued, 2)} simple queries per cycle\n`,
      );
      printTable(
        ['statement', 'per cycle'],
        [...c.statements.entries()]
          .sort((a, b) => b[1] - a[1])
          .map(([text, k]) => [text.slice(0, 140), fmt(k / issued, 2)]),
      );
    } finally {
      await gateway.close();
      await relay.close();
    }
  }

  // 2. Profiled pass at the job's concurrency.
  const gateway = await gatewayOn(bench.url);
  try {
    const { tenantId } = await seedTenantAndKey(gateway.ctx);
    await seedDueSubscriptions(gateway.ctx, tenantId, 50, today);
    await drainDue(gateway.ctx, 8);
    await seedDueSubscriptions(gateway.ctx, tenantId, count, today);
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    const meter = await meterBackends(bench.name);
    await session.post('Profiler.start');
    const cpu = process.cpuUsage();
    const started = performance.now();
    const issued = await drainDue(gateway.ctx, 8);
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
    const pg = await meter.stop();
    session.disconnect();
    if (out) writeFileSync(out, JSON.stringify(profile));
    console.log(
      `\nprofiled pass: ${issued} cycles in ${fmt(seconds, 1)} s (${fmt(issued / seconds, 0)}/s): Node CPU ${fmt((used.user + used.system) / 1000 / issued, 2)} ms/cycle, PostgreSQL backends ${fmt((pg.seconds * 1000) / issued, 2)} ms/cycle, ${fmt(pg.commits / issued, 2)} commits/cycle`,
    );
    const summary = summarizeProfile(profile, 0, Number.MAX_SAFE_INTEGER, 40);
    printProfile(summary, issued);
    console.log('\nthis tree by inclusive time:\n');
    printTable(
      ['function', 'where', 'µs per cycle', 'share'],
      summary.inclusive
        .slice(0, 45)
        .map((f) => [f.name, f.where, fmt(f.totalUs / issued), `${fmt(f.share * 100, 1)} %`]),
    );
  } finally {
    await gateway.close();
  }
} finally {
  await bench.drop();
}
process.exit(0);
