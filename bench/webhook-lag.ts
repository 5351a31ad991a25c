/**
 * Webhook end-to-end lag (issue 6 "Done when", issue 7 B6): test-mode Pix charges appended at a constant
 * rate, each as one append of the two events the decider emits for a simulated charge (Reserved, Issued:
 * 2 events, 2 webhook messages), through the PostgreSQL store with every inline projection (the outbox
 * included); the gateway's own delivery worker running; a real HTTP receiver on loopback. The charges skip
 * the idempotency claim and the HTTP layer, whose cost B1 measures, so the offered event rate is reached. Lag = receipt time minus the
 * event's recorded time (`timestamp` of the body, set by PostgreSQL at the append). Target p99 <= 1 s at
 * 500 events/s. Reference in the same run: the receiver's plain loopback round trip at the same rate, the
 * floor any delivery path pays.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { type ReserveTransaction, transaction } from '../src/aggregates/transaction.ts';
import { createGateway, type Gateway } from '../src/app.ts';
import { createTenant } from '../src/commands/tenants/create/handler.ts';
import { createTenantType } from '../src/commands/tenants/create-type/handler.ts';
import { type ChargeBody, requestSnapshot } from '../src/commands/transactions/create/handler.ts';
import { transactionStream } from '../src/commands/transactions/shared/stream.ts';
import { registerWebhookEndpoint } from '../src/commands/webhook-endpoints/create/handler.ts';
import { webhookEndpointDeps } from '../src/commands/webhook-endpoints/endpoint.ts';
import { loadConfig } from '../src/config.ts';
import { newId } from '../src/ids.ts';
import { createLogger } from '../src/logger.ts';
import { simulatedArtifacts } from '../src/providers/simulator.ts';
import { pixBody as samplePix } from '../test/support/charges.ts';
import {
  type BenchOptions,
  createBenchDatabase,
  fmt,
  median,
  percentile,
  printTable,
  sleep,
} from './support.ts';

const metadata = { actor: 'system:bench', request_id: 'req_bench' };

export interface LagRun {
  run: number;
  eventsPerSecond: number;
  expected: number;
  received: number;
  p50: number;
  p99: number;
  max: number;
  referenceP99: number;
}

/** The tests' Pix fixture, with amounts and references that vary per charge. */
function pixBody(i: number): ChargeBody {
  const body = samplePix({ amount: 1000 + (i % 500), reference: `bench-${i}`, description: 'Webhook lag' });
  return body as unknown as ChargeBody;
}

/** Calls `fire(i)` `total` times at `perSecond`, on a fixed schedule (late ticks catch up, never skip). */
async function atRate(perSecond: number, total: number, fire: (i: number) => Promise<void>): Promise<void> {
  const started = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    pending.push(fire(i));
  }
  await Promise.all(pending);
}

export async function benchWebhookLag(opts: BenchOptions): Promise<LagRun[]> {
  const eventsPerSecond = opts.rate;
  const chargesPerSecond = eventsPerSecond / 2;
  const charges = Math.round(chargesPerSecond * opts.seconds);
  const lags: number[] = [];
  const seen = new Set<string>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const id = String(req.headers['webhook-id']);
      if (req.url === '/hook' && !seen.has(id)) {
        seen.add(id);
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string };
        lags.push(at - Date.parse(body.timestamp));
      }
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;
  const runs: LagRun[] = [];
  try {
    // Run 0, when --warmup > 0, is a short discarded run: the first seconds of a cold process (JIT) are not
    // the steady state the target is about, as the HTTP benchmarks discard their warm-up.
    for (let run = opts.warmup > 0 ? 0 : 1; run <= opts.runs; run++) {
      const count = run === 0 ? Math.max(1, Math.round(chargesPerSecond * opts.warmup)) : charges;
      const db = await createBenchDatabase(4);
      let gateway: Gateway | undefined;
      try {
        const config = loadConfig({
          DATABASE_URL: db.url,
          DATABASE_POOL_SIZE: String(opts.pool),
          DOCUMENT_SIGNING_SECRET: 'bench-document-signing-secret-0123456789',
          CREDENTIALS_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
          WEBHOOK_ALLOWED_PRIVATE_HOSTS: `127.0.0.1:${port}`,
          LOG_LEVEL: 'warn',
        });
        gateway = await createGateway(config, createLogger('warn'));
        const { ctx } = gateway;
        const deps = { store: ctx.store, registry: ctx.events, now: () => ctx.now() };
        const { type } = await createTenantType(
          deps,
          { name: `bench ${randomUUID()}`, allowsChildren: true },
          metadata,
        );
        const tenant = await createTenant(deps, { name: 'Bench', typeId: type.id, parentId: null }, metadata);
        await registerWebhookEndpoint(
          webhookEndpointDeps(ctx),
          { tenantId: tenant.id, url: `http://127.0.0.1:${port}/hook`, mode: 'test', enabled: true },
          metadata,
        );
        gateway.webhooks.start();
        lags.length = 0;
        seen.clear();
        const generationStarted = performance.now();
        await atRate(chargesPerSecond, count, async (i) => {
          const now = new Date();
          const transactionId = newId('txn');
          const body = pixBody(i);
          const reserve: ReserveTransaction = {
            kind: 'reserve',
            transactionId,
            tenantId: tenant.id,
            livemode: false,
            method: 'pix',
            amount: body.amount,
            reference: body.reference,
            description: body.description,
            costCenterId: null,
            callbackUrl: null,
            providerId: null,
            subaccountId: null,
            environment: 'sandbox',
            simulated: true,
            idempotencyKeySha256: '0'.repeat(64),
            expiresIn: 3600,
            boleto: null,
            request: requestSnapshot({
              tenantId: tenant.id,
              livemode: false,
              method: 'pix',
              idempotencyKey: 'unused',
              route: '/v1/pix',
              body,
            }),
            providerRequest: null,
          };
          const reserved = transaction.decide(reserve, transaction.initialState, { now });
          if (!Array.isArray(reserved)) throw reserved;
          const state = transaction.evolve(transaction.initialState, reserved[0] as never);
          const artifacts = simulatedArtifacts({ ...reserve, customer: {}, now });
          const issued = transaction.decide({ kind: 'record_issued', artifacts }, state, { now });
          if (!Array.isArray(issued)) throw issued;
          await ctx.store.append(
            transactionStream(transactionId),
            [...reserved, ...issued].map((e) => ({ ...ctx.events.encode(e), id: randomUUID(), metadata })),
            'no_stream',
          );
        });
        const generationSeconds = (performance.now() - generationStarted) / 1000;
        const expected = count * 2;
        const deadline = Date.now() + 30_000;
        while (seen.size < expected && Date.now() < deadline) await sleep(50);
        const received = seen.size;
        const sorted = [...lags].sort((a, b) => a - b);

        // Reference: the same receiver, plain POSTs at the same rate (no database, no signing).
        const rtts: number[] = [];
        await atRate(eventsPerSecond, Math.min(expected, eventsPerSecond * 5), async () => {
          const t = performance.now();
          const r = await request(`http://127.0.0.1:${port}/ref`, { method: 'POST', body: '{}' });
          await r.body.dump();
          rtts.push(performance.now() - t);
        });
        rtts.sort((a, b) => a - b);
        if (run === 0) {
          console.log(
            `warm-up (discarded): ${seen.size}/${expected} delivered, lag p99 ${fmt(percentile(sorted, 99))} ms`,
          );
          continue;
        }
        runs.push({
          run,
          eventsPerSecond: expected / generationSeconds,
          expected,
          received,
          p50: percentile(sorted, 50),
          p99: percentile(sorted, 99),
          max: sorted.at(-1) ?? Number.NaN,
          referenceP99: percentile(rtts, 99),
        });
      } finally {
        await gateway?.close();
        await db.drop();
      }
    }
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
  printTable(
    ['run', 'events/s', 'delivered', 'lag p50 ms', 'lag p99 ms', 'lag max ms', 'loopback POST p99 ms'],
    runs.map((r) => [
      String(r.run),
      fmt(r.eventsPerSecond),
      `${r.received}/${r.expected}`,
      fmt(r.p50),
      fmt(r.p99),
      fmt(r.max),
      fmt(r.referenceP99, 2),
    ]),
  );
  const p99 = median(runs.map((r) => r.p99));
  console.log(`\nmedian lag p99: ${fmt(p99)} ms (target <= 1000 ms at ${eventsPerSecond} events/s)`);
  return runs;
}
