/**
 * The Pix Automatic debit poller at scale (issue 27 item 6; SPEC 4.11, 8):
 *  1. reference: `GET /health` over loopback HTTP on the same process, CPU per request;
 *  2. `--count` live debits (default 100,000) scheduled at Safe2Pay over the provider emulator (each its own
 *     approved authorization, created, approved at the emulator and refreshed through the public API, then
 *     `POST /v1/pix-automatic/charges`), all awaiting confirmation on the same due date; then one process
 *     polls them once, as the job does (`pollDueDebits`, batch 500, concurrency 8) at the due date's first
 *     instant: polls per second and CPU per poll (the emulator answers in this same process, so its CPU is in
 *     the figure, as the client's is in the reference's); every debit asked once, none missed;
 *  3. a tick over `--idle` schedule rows none of which is due (default 1,000,000 rows of
 *     `pix_automatic_debit_polls`, written by SQL), median of three, with its plan (the partial index).
 *
 *   node --import tsx bench/pix-automatic-polling.ts [count] [idle]
 */

import { randomBytes, randomUUID } from 'node:crypto';
import { firstPollAt } from '../src/aggregates/pix-automatic-debit-polling.ts';
import { addDays, saoPauloDate } from '../src/aggregates/subscription-calendar.ts';
import { createGateway } from '../src/app.ts';
import type { JobDeps } from '../src/commands/job.ts';
import { pollDueDebits } from '../src/commands/pix-automatic/debits/poll/run-due.ts';
import { createProvider } from '../src/commands/providers/create/handler.ts';
import { providerDeps } from '../src/commands/providers/deps.ts';
import { createRoutingRule } from '../src/commands/routing-rules/create/handler.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { startProviderEmulator } from '../src/providers/emulator/server.ts';
import { pixBody } from '../test/support/charges.ts';
import { seedTenantAndKey } from '../test/support/fixtures.ts';
import { createBenchDatabase, fmt, idleTickRow, onDatabase, printTable } from './support.ts';

const count = Number(process.argv[2] ?? 100_000);
const idle = Number(process.argv[3] ?? 1_000_000);
const REFERENCE_REQUESTS = 2_000;
const BATCH = 500;
const metadata = { actor: 'system:bench', request_id: 'req_bench_pxa' };

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

const emulator = await startProviderEmulator({ port: 0, host: '127.0.0.1' });
const bench = await createBenchDatabase(4, true);
await bench.close();
const config = loadConfig({
  DATABASE_URL: bench.url,
  ENABLE_SIMULATOR: 'false',
  DATABASE_POOL_SIZE: '20',
  DOCUMENT_SIGNING_SECRET: 'bench-document-signing-secret-0123456789abcdef',
  RATE_LIMIT_PER_MINUTE: '10000000',
  CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  ALLOW_LIVE_PAYMENTS: 'true',
  ALLOW_UNSCOPED_LIVE_PAYMENTS: 'true',
  PROVIDER_ALLOWED_PRIVATE_HOSTS: new URL(emulator.url).host,
});
const gateway = await createGateway(config, createLogger('warn'));
const rows: string[][] = [];
try {
  const ctx = gateway.ctx;
  const { tenantId, key } = await seedTenantAndKey(ctx, { livemode: true });
  const { provider } = await createProvider(
    providerDeps(ctx),
    {
      name: 'Safe2Pay (emulator)',
      kind: 'external',
      environment: 'production',
      enabledMethods: ['pix'],
      isMarketplace: false,
      credentials: { api_key: 'emu-production-key' },
      paymentHost: emulator.paymentUrl,
      apiHost: emulator.apiUrl,
    },
    metadata,
  );
  await createRoutingRule(
    providerDeps(ctx),
    { method: 'pix', tenantId, providerId: provider.id, priority: 1, enabled: true },
    metadata,
  );
  await gateway.http.listen({ port: 0, host: '127.0.0.1' });
  const address = gateway.http.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const call = async (method: string, path: string, json?: unknown, idempotent = false) => {
    const r = await fetch(`${base}${path}`, {
      method,
      headers: {
        'x-api-key': key,
        ...(json === undefined ? {} : { 'content-type': 'application/json' }),
        ...(idempotent ? { 'idempotency-key': randomUUID() } : {}),
      },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    const text = await r.text();
    if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${text}`);
    return text === '' ? undefined : (JSON.parse(text) as { data: Record<string, string> });
  };

  // 1. The reference: GET /health, 16 at a time, CPU of this process per request (server and client).
  let left = REFERENCE_REQUESTS;
  const refCpu = process.cpuUsage();
  const refStart = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (left-- > 0) {
        const r = await fetch(`${base}/health`);
        await r.arrayBuffer();
        if (r.status !== 200) throw new Error(`GET /health answered ${r.status}`);
      }
    }),
  );
  const refSeconds = (performance.now() - refStart) / 1000;
  const refMs = cpuMs(refCpu) / REFERENCE_REQUESTS;
  rows.push([
    'GET /health (reference)',
    fmt(REFERENCE_REQUESTS),
    fmt(refSeconds, 1),
    fmt(REFERENCE_REQUESTS / refSeconds, 0),
    fmt(refMs, 3),
    '1.00',
  ]);

  // 2. `count` debits awaiting confirmation, all due on the same date, each of its own authorization.
  const due = addDays(saoPauloDate(new Date()), 5);
  const customer = pixBody().customer;
  const queue = Array.from({ length: count }, (_, i) => i);
  const seedStart = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
        const a = await call(
          'POST',
          '/v1/pix-automatic/authorizations',
          {
            name: 'Plano',
            description: 'Mensalidade',
            amount: 4990,
            first_due_date: due,
            interval_months: 1,
            customer,
          },
          true,
        );
        if (!a) throw new Error('no authorization');
        const moved = await fetch(
          `${emulator.url}/_emulator/pix-automatic/authorizations/${encodeURIComponent(a.data.provider_reference ?? '')}/move`,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ to: 'approve' }),
          },
        );
        if (moved.status !== 200) throw new Error(`approve answered ${moved.status}`);
        await call('POST', `/v1/pix-automatic/authorizations/${a.data.id}/refresh`);
        await call(
          'POST',
          '/v1/pix-automatic/charges',
          {
            authorization_id: a.data.id,
            due_date: due,
            amount: 4990,
            reference: `bench-${i}`,
            description: 'Mensalidade',
            customer,
          },
          true,
        );
      }
    }),
  );
  console.log(`seeded ${fmt(count)} debits in ${fmt((performance.now() - seedStart) / 1000, 1)} s`);
  const deps = ctx as unknown as JobDeps;
  const at = firstPollAt(due);
  const cpu = process.cpuUsage();
  const started = performance.now();
  let polled = 0;
  let failed = 0;
  for (;;) {
    const r = await pollDueDebits(deps, {
      now: at,
      batchSize: BATCH,
      concurrency: 8,
      holdMs: 120_000,
      metadata: { actor: 'system:bench' },
    });
    polled += r.polled.length;
    failed += r.polled.filter((p) => p.outcome !== 'applied').length;
    if (r.claimed < BATCH) break;
  }
  const seconds = (performance.now() - started) / 1000;
  const perPoll = cpuMs(cpu) / polled;
  const check = await onDatabase(
    bench.url,
    `select count(*)::int as n, count(*) filter (where next_poll_at = '${new Date(at.getTime() + 300_000).toISOString()}')::int as next
     from pix_automatic_debit_polls`,
  );
  const { n, next } = check.rows[0] as { n: number; next: number };
  if (polled !== count || n !== count || next !== count || failed !== 0) {
    throw new Error(
      `expected ${count} debits polled once: polled ${polled} (${failed} not applied), rows ${n}, next ${next}`,
    );
  }
  rows.push([
    `${fmt(count)} debits awaiting confirmation, one worker`,
    fmt(polled),
    fmt(seconds, 1),
    fmt(polled / seconds, 0),
    fmt(perPoll, 2),
    fmt(perPoll / refMs, 1),
  ]);
  console.log(`every debit asked once: ${fmt(polled)} polls, next poll 5 minutes later for all`);

  // 3. A tick over `idle` schedule rows of which none is due.
  await onDatabase(
    bench.url,
    `insert into pix_automatic_debit_polls (transaction_id, authorization_id, tenant_id, livemode, due_date, next_poll_at)
     select 'txn_idle' || g, 'pxa_idle' || g, '${tenantId}', true, '2027-01-31', now() + interval '30 days' + (g || ' seconds')::interval
     from generate_series(1, ${idle}) g`,
  );
  await onDatabase(bench.url, 'analyze pix_automatic_debit_polls');
  const ticks: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const r = await pollDueDebits(deps, {
      now: new Date(),
      batchSize: BATCH,
      concurrency: 8,
      holdMs: 120_000,
      metadata: { actor: 'system:bench' },
    });
    ticks.push(performance.now() - t);
    if (r.claimed !== 0) throw new Error(`an idle tick claimed ${r.claimed}`);
  }
  rows.push(
    await idleTickRow(
      bench.url,
      'pix_automatic_debit_polls',
      'debits',
      `select transaction_id from pix_automatic_debit_polls where next_poll_at is not null
     and next_poll_at <= now() order by next_poll_at limit ${BATCH} for update skip locked`,
      ticks,
    ),
  );
} finally {
  await gateway.close();
  await emulator.close();
  await bench.drop();
}
printTable(['run', 'polls or requests', 'seconds', 'per second', 'CPU ms each', 'CPU / health'], rows);
process.exit(0);
