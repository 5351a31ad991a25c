/**
 * The Pix Automatic debit poller at scale (issue 27 item 6; SPEC 4.11, 8):
 *  1. reference: `GET /health` over loopback HTTP on the same process, CPU per request;
 *  2. `--count` live debits (default 100,000) scheduled at Safe2Pay over the provider emulator, all awaiting
 *     confirmation on the same due date, each of its own approved authorization. Seeded below the API so that
 *     100,000 take minutes, not hours: the emulator's Pix Automatic state is created in-process (what its v3
 *     routes do), the gateway's streams are what the deciders make of the same commands, appended 500 debits
 *     per statement with the inline read models; the wire itself is covered by the tests. Then one process
 *     polls them once, as the job does (`pollDueDebits`, batch 500, concurrency 8) at the due date's first
 *     instant, over HTTP to the emulator: polls per second and CPU per poll (the emulator answers in this same
 *     process, so its CPU is in the figure, as the client's is in the reference's); every debit asked once,
 *     none missed. One worker keeps up when it polls faster than 100,000 per 5 minutes (334 per second);
 *  3. a tick over `--idle` schedule rows none of which is due (default 1,000,000 rows of
 *     `pix_automatic_debit_polls`, written by SQL), median of three, with its plan (the partial index).
 *
 *   node --import tsx bench/pix-automatic-polling.ts [count] [idle]
 */

import { randomBytes, randomUUID } from 'node:crypto';
import { type Decider, type DomainEvent, fold } from '../src/aggregates/decider.ts';
import { pixAutomaticAuthorization } from '../src/aggregates/pix-automatic-authorization.ts';
import { firstPollAt } from '../src/aggregates/pix-automatic-debit-polling.ts';
import { addDays, saoPauloDate } from '../src/aggregates/subscription-calendar.ts';
import { NO_ARTIFACTS, transaction } from '../src/aggregates/transaction.ts';
import { createGateway } from '../src/app.ts';
import type { JobDeps } from '../src/commands/job.ts';
import { authorizationStream } from '../src/commands/pix-automatic/authorizations/load.ts';
import { pollDueDebits } from '../src/commands/pix-automatic/debits/poll/run-due.ts';
import { createProvider } from '../src/commands/providers/create/handler.ts';
import { providerDeps } from '../src/commands/providers/deps.ts';
import { createRoutingRule } from '../src/commands/routing-rules/create/handler.ts';
import { transactionStream } from '../src/commands/transactions/shared/stream.ts';
import { loadConfig } from '../src/config.ts';
import type { NewEvent, StreamAppend } from '../src/events/event-store.ts';
import { newId } from '../src/ids.ts';
import { createLogger } from '../src/logger.ts';
import { PixAutomaticStore } from '../src/providers/emulator/pix-automatic-state.ts';
import { startProviderEmulator } from '../src/providers/emulator/server.ts';
import { pixBody } from '../test/support/charges.ts';
import { portCustomer } from '../test/support/emulator-control.ts';
import { seedTenantAndKey } from '../test/support/fixtures.ts';
import { reserveCommand } from '../test/support/transactions.ts';
import { createBenchDatabase, fmt, idleTickRow, onDatabase, printTable } from './support.ts';

const count = Number(process.argv[2] ?? 100_000);
const idle = Number(process.argv[3] ?? 1_000_000);
const REFERENCE_REQUESTS = 2_000;
const BATCH = 500;
/** The charge fixture's amount (test/support/transactions.ts reserveCommand), the contract's too. */
const AMOUNT = 1250;
const metadata = { actor: 'system:bench', request_id: 'req_bench_pxa' };

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/**
 * One approved authorization and one debit scheduled on it: at the emulator in its own state (what its v3
 * routes do on create, the payer's approval and a schedule), in the gateway as the streams its deciders make
 * of the same commands (appended in batches). Answers the streams.
 */
function seedDebit(providerId: string, i: number, due: string): StreamAppend[] {
  const authorizationId = newId('pxa');
  const transactionId = newId('txn');
  const rec = emulatorState.createRec({
    environment: 'production',
    via: 'v3',
    contract: authorizationId,
    name: 'Plano',
    object: 'Mensalidade',
    debtor: { document: portCustomer.document, name: portCustomer.name },
    firstDate: due,
    periodicity: 'MENSAL',
    retryPolicy: 'NAO_PERMITE',
    amount: AMOUNT,
    immediatePayment: null,
  });
  const approved = emulatorState.moveRec(rec, 'approve');
  if (approved !== null) throw new Error(`authorization ${i}: ${approved}`);
  const cobr = emulatorState.schedule(rec, {
    reference: transactionId,
    dueDate: due,
    amount: AMOUNT,
    info: 'Mensalidade',
  });
  if (!('txid' in cobr)) throw new Error(`debit ${i}: ${JSON.stringify(cobr)}`);
  const created = { providerReference: rec.idRec };
  const scheduled = { providerReference: cobr.txid };
  const now = new Date();
  const authorization = decided(pixAutomaticAuthorization, [
    {
      kind: 'create',
      data: {
        authorization_id: authorizationId,
        tenant_id: seeded.tenantId,
        livemode: true,
        simulated: false,
        environment: 'production',
        provider_id: providerId,
        name: 'Plano',
        description: 'Mensalidade',
        amount: AMOUNT,
        first_due_date: due,
        interval_months: 1,
        customer: pixBody().customer as never,
        created_at: now.toISOString(),
      },
    },
    { kind: 'issued', providerReference: created.providerReference, copyPaste: 'bench' },
    { kind: 'remote_approved', providerStatus: 'APROVADA' },
  ]);
  const reserve = reserveCommand(transactionId, 'pix_live', {
    tenantId: seeded.tenantId,
    reference: `bench-${i}`,
    providerId,
    expiresIn: null,
    providerRequest: null,
    pixAutomatic: { authorizationId, dueDate: due },
  });
  const debit = decided(transaction, [
    { ...reserve, request: { ...reserve.request, tenant_id: seeded.tenantId } },
    {
      kind: 'record_issued',
      artifacts: { ...NO_ARTIFACTS, provider_reference: scheduled.providerReference },
    },
  ]);
  return [
    { stream: authorizationStream(authorizationId), events: authorization, expected: 'no_stream' },
    { stream: transactionStream(transactionId), events: debit, expected: 'no_stream' },
  ];
}

/** The events `commands` make from a new stream, each decided on the state the previous ones left. */
function decided<C, E extends DomainEvent, S>(decider: Decider<C, E, S>, commands: readonly C[]): NewEvent[] {
  const events: E[] = [];
  for (const command of commands) {
    const decision = decider.decide(command, fold(decider, events), { now: new Date() });
    if (!Array.isArray(decision)) throw decision;
    events.push(...decision);
  }
  return events.map((e) => ({ ...gateway.ctx.events.encode(e), id: randomUUID(), metadata }));
}

const emulatorState = new PixAutomaticStore();
const emulator = await startProviderEmulator({ port: 0, host: '127.0.0.1', pixAutomatic: emulatorState });
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
const seeded = await seedTenantAndKey(gateway.ctx, { livemode: true });
const rows: string[][] = [];
try {
  const ctx = gateway.ctx;
  const { tenantId } = seeded;
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

  // 2. `count` debits awaiting confirmation, all due on the same date, each of its own authorization. Seeded
  // below the API (BENCHMARKS.md): at the emulator through the Safe2Pay adapter's own calls (create the
  // authorization, the payer approves it, schedule the debit), in the gateway through the deciders on the
  // real store (authorization created and approved; debit reserved and issued with the schedule's id), so the
  // poll reads exactly what a debit scheduled through POST /v1/pix-automatic/charges leaves behind.
  const due = addDays(saoPauloDate(new Date()), 5);
  const appendMany = ctx.store.appendMany?.bind(ctx.store);
  if (!appendMany) throw new Error('the bench needs the PostgreSQL store');
  const queue = Array.from({ length: count }, (_, i) => i);
  const seedStart = performance.now();
  let pending: StreamAppend[] = [];
  const flush = async () => {
    const batch = pending;
    pending = [];
    // One statement per 500 debits, the inline read models (transactions, polls) written in it.
    if (batch.length > 0) await appendMany(batch);
  };
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
        pending.push(...seedDebit(provider.id, i, due));
        if (pending.length >= 1_000) await flush();
      }
    }),
  );
  await flush();
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
