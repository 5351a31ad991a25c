import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import { transactionStream } from '../../src/commands/transactions/shared/stream.ts';
import { createLogger } from '../../src/logger.ts';
import { WebhookDeliveryWorker } from '../../src/workers/webhook-delivery.ts';
import { assertError, idem, roleTokens, startAdminApp } from '../support/admin.ts';
import { pixBody } from '../support/charges.ts';
import type { SeededKey } from '../support/fixtures.ts';
import { seedTenantAndKey } from '../support/fixtures.ts';
import type { TestApp } from '../support/http.ts';

/**
 * SPEC 6 end to end (issue 6 "Done when"): a real HTTP receiver on loopback (allowed through
 * WEBHOOK_ALLOWED_PRIVATE_HOSTS), signatures checked with the `standardwebhooks` package, an outage with
 * every event delivered afterwards under the same `webhook-id`, 410 disabling an endpoint, and the SSRF
 * guard refusing private callback addresses. The worker is driven by `runOnce` and the clock by `ctx.now`,
 * so the three-day retry schedule runs in milliseconds.
 */

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** The receiver answers `reply()` (status) and records everything, failures included. */
const receiver = {
  server: undefined as Server | undefined,
  port: 0,
  received: [] as Received[],
  reply: (_r: Received): number => 204,
};

let app: TestApp;
let tokens: Awaited<ReturnType<typeof roleTokens>>;
let clock = Date.now();

const url = (path: string) => `http://127.0.0.1:${receiver.port}${path}`;

async function registerEndpoint(tenantId: string, path: string, mode: 'live' | 'test' = 'test') {
  const res = await app.request('POST', '/admin/webhook-endpoints', {
    headers: { ...tokens.super_admin, ...idem() },
    json: { tenant_id: tenantId, url: url(path), mode },
  });
  assert.equal(res.status, 201, res.text);
  return { id: res.body.data.id as string, secret: res.body.data.secret as string };
}

async function createPix(key: SeededKey, overrides: Record<string, unknown> = {}) {
  const res = await app.request('POST', '/v1/pix', {
    headers: { 'x-api-key': key.key, 'idempotency-key': randomUUID() },
    json: pixBody(overrides),
  });
  return res;
}

/** A worker on the test's clock (the gateway's own worker is not started by the harness). */
let worker: WebhookDeliveryWorker;

async function drainWith(w: WebhookDeliveryWorker): Promise<void> {
  // Async mode: the outbox is a projection like the others; its deliveries exist once it caught up.
  await app.settle();
  while ((await w.runOnce()) > 0) {}
}

/** Runs the worker until nothing is due now. */
const drain = () => drainWith(worker);

/** Moves the clock forward and runs what became due. */
async function later(ms: number): Promise<void> {
  clock += ms;
  await drain();
}

function verify(secret: string, r: Received) {
  return new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  }) as { type: string; timestamp: string; data: Record<string, unknown> };
}

const at = (path: string) => receiver.received.filter((r) => r.path === path);

beforeAll(async () => {
  receiver.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      receiver.received.push(r);
      res.statusCode = receiver.reply(r);
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.server?.listen(0, '127.0.0.1', resolve));
  receiver.port = (receiver.server.address() as AddressInfo).port;
  app = await startAdminApp({
    CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_ALLOWED_PRIVATE_HOSTS: `127.0.0.1:${receiver.port}`,
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_CONNECT_TIMEOUT_MS: '500',
    ENABLE_SIMULATOR: 'true',
  });
  worker = new WebhookDeliveryWorker(app.gateway.ctx, {
    intervalMs: 1000,
    concurrency: 8,
    now: () => new Date(Math.max(clock, Date.now())),
  });
  tokens = await roleTokens(app);
});
afterAll(async () => {
  await app.close();
  await new Promise((resolve) => receiver.server?.close(resolve));
});
beforeEach(() => {
  receiver.reply = () => 204;
});

describe('webhooks (SPEC 6)', () => {
  test('created and updated events reach the endpoint, signed (standardwebhooks verifies), in order', async () => {
    const key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
    const { secret } = await registerEndpoint(key.tenantId, '/signed');
    const created = await createPix(key);
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id as string;
    // The outbox is written with the events (inline) or by the catch-up (async lane): the deliveries
    // exist before any worker ran.
    await app.settle();
    const pending = await app.request('GET', `/admin/webhook-deliveries?transaction_id=${id}`, {
      headers: tokens.super_admin,
    });
    assert.equal(pending.body.data.length, 2);
    await drain();
    const paid = await app.request('POST', `/v1/transactions/${id}/simulate`, {
      headers: { 'x-api-key': key.key },
      json: { status: 'paid' },
    });
    assert.equal(paid.status, 200);
    await drain();

    const got = at('/signed').map((r) => verify(secret, r));
    assert.deepEqual(
      got.map((m) => [m.type, m.data.status, m.data.previous_status, m.data.sequence]),
      [
        ['transaction.created', 'processing', null, 1],
        ['transaction.updated', 'pending', 'processing', 2],
        ['transaction.updated', 'paid', 'pending', 3],
      ],
    );
    for (const m of got) assert.equal(m.data.id, id);
    // Every body is what the `webhooks` section of /openapi.json describes (issue 15 item 1).
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ ...(await app.request('GET', '/openapi.json')).body, $id: 'openapi.json' });
    for (const m of got) {
      const ok = ajv.validate({ $ref: 'openapi.json#/components/schemas/TransactionWebhookEvent' }, m);
      assert.ok(ok, `${m.type} body does not match /openapi.json: ${ajv.errorsText()}`);
    }
    // `data` is the Transaction as GET returns it, at that version.
    const now = await app.request('GET', `/v1/transactions/${id}`, { headers: { 'x-api-key': key.key } });
    const { previous_status: _p, sequence: _s, ...last } = got[2]?.data ?? {};
    assert.deepEqual(last, now.body.data);
    assert.equal(got[1]?.data.paid_at, null);
    // A tampered body does not verify.
    const first = at('/signed')[0] as Received;
    assert.throws(() => verify(secret, { ...first, body: first.body.replace('processing', 'paid') }));
  });

  test('receiver down for a while: every event delivered afterwards, retries keep the webhook-id', async () => {
    const key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
    const { secret } = await registerEndpoint(key.tenantId, '/flaky');
    receiver.reply = () => 503;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createPix(key, { reference: `flaky-${i}` })).body.data.id);
    await drain();
    for (const step of [10_000, 60_000, 5 * 60_000]) await later(step);
    const failedAttempts = at('/flaky').length;
    assert.ok(failedAttempts >= 10 * 3, `attempts while down: ${failedAttempts}`);
    receiver.reply = () => 200;
    await later(60 * 60_000);

    const ok = at('/flaky').filter((r) => receiver.reply(r) === 200);
    const delivered = new Set(
      (
        await app.gateway.ctx.db
          .selectFrom('webhook_deliveries')
          .select(['message_id', 'status'])
          .where('transaction_id', 'in', ids)
          .execute()
      ).map((d) => {
        assert.equal(d.status, 'delivered');
        return d.message_id;
      }),
    );
    assert.equal(delivered.size, 10, 'created + updated for each of 5 charges');
    // Every message was received, verifiable, and every attempt of it carried the same webhook-id.
    const seen = new Map<string, number>();
    for (const r of at('/flaky')) {
      const id = String(r.headers['webhook-id']);
      seen.set(id, (seen.get(id) ?? 0) + 1);
      verify(secret, r);
    }
    assert.deepEqual([...seen.keys()].sort(), [...delivered].sort());
    for (const n of seen.values()) assert.ok(n >= 2, 'each message was retried under its own id');
    assert.ok(ok.length >= 10);
    // The attempts are recorded per delivery.
    const [one] = await app.gateway.ctx.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('transaction_id', '=', ids[0] as string)
      .execute();
    const detail = await app.request('GET', `/admin/webhook-deliveries/${one?.id}`, {
      headers: tokens.super_admin,
    });
    assert.equal(detail.status, 200, detail.text);
    const log = detail.body.data.attempts_log as { outcome: string; status_code: number }[];
    assert.ok(log.length >= 2);
    assert.deepEqual(
      log.map((a) => a.outcome),
      [...log.slice(0, -1).map(() => 'failed'), 'delivered'],
    );
    assert.equal(log[0]?.status_code, 503);
  });

  test('a 410 disables the endpoint; later events are not sent to it', async () => {
    const key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
    const endpoint = await registerEndpoint(key.tenantId, '/gone');
    receiver.reply = (r) => (r.path === '/gone' ? 410 : 204);
    await createPix(key);
    await drain();
    const got = await app.request('GET', `/admin/webhook-endpoints/${endpoint.id}`, {
      headers: tokens.super_admin,
    });
    assert.equal(got.body.data.enabled, false);
    assert.equal(got.body.data.disabled_reason, 'gone');
    const before_ = at('/gone').length;
    await createPix(key);
    await drain();
    await later(24 * 60 * 60_000);
    assert.equal(at('/gone').length, before_);
  });

  test('endpoints get only their tenant and mode; callback_url gets its charge, signed with the callback secret', async () => {
    const key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
    await registerEndpoint(key.tenantId, '/live-only', 'live');
    const res = await createPix(key, { callback_url: url('/callback') });
    assert.equal(res.status, 201, res.text);
    await drain();
    assert.equal(at('/live-only').length, 0);
    const secret = await app.request(
      'GET',
      `/admin/webhook-callback-secret?tenant_id=${key.tenantId}&mode=test`,
      { headers: tokens.super_admin },
    );
    assert.equal(secret.status, 200, secret.text);
    const got = at('/callback').map((r) => verify(secret.body.data.secret, r));
    assert.deepEqual(
      got.map((m) => m.type),
      ['transaction.created', 'transaction.updated'],
    );
    assert.equal(got[0]?.data.id, res.body.data.id);
  });

  test('SSRF guard: a callback_url at a private or metadata address is refused (422), nothing appended', async () => {
    const key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
    for (const bad of [
      'https://10.0.0.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://127.0.0.1/hook',
      'https://[::1]/hook',
      'http://example.com/hook',
      `http://127.0.0.2:${receiver.port}/hook`,
    ]) {
      const res = await createPix(key, { callback_url: bad });
      assertError(res, 422, 'validation_error');
      assert.equal(res.body.error.param, 'callback_url');
    }
    const list = await app.request('GET', '/v1/transactions', { headers: { 'x-api-key': key.key } });
    assert.equal(list.body.data.length, 0);
  });

  test('SSRF guard after DNS: a name resolving to a private address is never contacted', async () => {
    const key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
    const res = await createPix(key, { callback_url: 'https://rebind.example.test/hook' });
    assert.equal(res.status, 201, res.text);
    const rebinding = new WebhookDeliveryWorker(app.gateway.ctx, {
      intervalMs: 1000,
      concurrency: 2,
      lookup: async () => [{ address: '10.1.2.3', family: 4 }],
    });
    await drainWith(rebinding);
    const [delivery] = await app.gateway.ctx.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('transaction_id', '=', res.body.data.id)
      .execute();
    const attempts = await app.gateway.ctx.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', '=', delivery?.id ?? '')
      .execute();
    assert.deepEqual(
      attempts.map((a) => a.outcome),
      ['refused'],
    );
    assert.equal(delivery?.status, 'pending', 'retried later: DNS answers change');
  });

  test('issue 23 item 2.9: a callback_url the URL parser reads otherwise than written is 422; the normal form is stored', async () => {
    const key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
    for (const bad of [
      'https://shop.example.com\\@127.0.0.1/hook',
      'https:///shop.example.com/hook',
      'https://shop.example.com:0/hook',
      'https://shop.example.com:443/hook',
      ' https://shop.example.com/hook',
    ]) {
      const res = await createPix(key, { callback_url: bad });
      assertError(res, 422, 'validation_error');
      assert.equal(res.body.error.param, 'callback_url', bad);
    }
    const none = await app.request('GET', '/v1/transactions', { headers: { 'x-api-key': key.key } });
    assert.equal(none.body.data.length, 0, 'nothing was created');
    const res = await createPix(key, { callback_url: 'HTTPS://Shop.Example.COM' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.callback_url, 'https://shop.example.com/');
    // The outbox is a projection: async mode builds it by catch-up (TestApp.settle's contract).
    await app.settle();
    const [delivery] = await app.gateway.ctx.db
      .selectFrom('webhook_deliveries')
      .select('callback_url')
      .where('transaction_id', '=', res.body.data.id)
      .execute();
    assert.equal(delivery?.callback_url, 'https://shop.example.com/', 'the sender gets the normal form');
  });

  test('issue 23 item 2.9: a tenant reads one text for every refused destination; the reason is only in the server log', async () => {
    const key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
    // The gateway's own logger (redaction included), writing into memory.
    const logs: string[] = [];
    const logger = createLogger(
      'info',
      new Writable({
        write(chunk, _enc, done) {
          logs.push(String(chunk));
          done();
        },
      }),
    );
    const cases = [
      { name: 'loopback.internal.example', lookup: async () => [{ address: '127.0.0.1', family: 4 }] },
      {
        name: 'missing.internal.example',
        lookup: async () => {
          throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
        },
      },
    ];
    const seen: unknown[] = [];
    for (const c of cases) {
      const res = await createPix(key, { callback_url: `https://${c.name}/hook?token=sk_receiver_secret` });
      assert.equal(res.status, 201, res.text);
      await drainWith(
        new WebhookDeliveryWorker(app.gateway.ctx, {
          intervalMs: 1000,
          concurrency: 2,
          lookup: c.lookup,
          logger,
        }),
      );
      const list = await app.request('GET', `/admin/webhook-deliveries?transaction_id=${res.body.data.id}`, {
        headers: tokens.super_admin,
      });
      assert.equal(list.status, 200, list.text);
      const [delivery] = list.body.data;
      const detail = await app.request('GET', `/admin/webhook-deliveries/${delivery.id}`, {
        headers: tokens.super_admin,
      });
      const attempts = detail.body.data.attempts_log.map((a: { outcome: string; error: string }) => [
        a.outcome,
        a.error,
      ]);
      seen.push([delivery.last_error, attempts]);
    }
    const generic = 'destination not allowed or unreachable';
    assert.deepEqual(seen, [
      [generic, [['refused', generic]]],
      [generic, [['refused', generic]]],
    ]);
    // The operator keeps the precise reason, without the URL (its query may carry a token).
    const refused = logs.filter((l) => l.includes('webhook destination refused'));
    assert.ok(
      refused.some((l) => l.includes('host resolves to a loopback address')),
      logs.join('\n'),
    );
    assert.ok(
      refused.some((l) => l.includes('host not found')),
      logs.join('\n'),
    );
    assert.ok(!logs.join('\n').includes('sk_receiver_secret'));
  });

  test('resend: same webhook-id and body again; viewer may list but not resend', async () => {
    const key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
    await registerEndpoint(key.tenantId, '/resend');
    const id = (await createPix(key)).body.data.id as string;
    await drain();
    const list = await app.request(
      'GET',
      `/admin/webhook-deliveries?transaction_id=${id}&status=delivered&limit=1`,
      { headers: tokens.super_admin },
    );
    assert.equal(list.status, 200, list.text);
    const delivery = list.body.data[0];
    assert.equal(delivery.status, 'delivered');
    const first = at('/resend').find((r) => r.headers['webhook-id'] === delivery.message_id) as Received;
    assertError(
      await app.request('POST', `/admin/webhook-deliveries/${delivery.id}/resend`, {
        headers: tokens.viewer,
      }),
      403,
      'forbidden',
    );
    const resent = await app.request('POST', `/admin/webhook-deliveries/${delivery.id}/resend`, {
      headers: tokens.super_admin,
    });
    assert.equal(resent.status, 200, resent.text);
    assert.equal(resent.body.data.status, 'pending');
    await drain();
    const again = at('/resend').filter((r) => r.headers['webhook-id'] === delivery.message_id);
    assert.equal(again.length, 2);
    assert.equal(again[1]?.body, first.body);
    // Tree scoping: a tenant_admin of another tree does not see it.
    const theirs = await app.request('GET', `/admin/webhook-deliveries/${delivery.id}`, {
      headers: tokens.tenant_admin,
    });
    assertError(theirs, 404, 'not_found');
  });

  test('two workers at once send each delivery once', async () => {
    const key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
    await registerEndpoint(key.tenantId, '/pair');
    for (let i = 0; i < 10; i++) await createPix(key, { reference: `pair-${i}` });
    // The same clock as `worker`: leases are compared across workers (earlier tests moved it forward).
    const other = new WebhookDeliveryWorker(app.gateway.ctx, {
      intervalMs: 1000,
      concurrency: 4,
      now: () => new Date(Math.max(clock, Date.now())),
    });
    await Promise.all([drain(), drainWith(other)]);
    const ids = at('/pair').map((r) => String(r.headers['webhook-id']));
    assert.equal(ids.length, 20);
    assert.equal(new Set(ids).size, 20);
  });

  test('the stream and the outbox agree: one message per status change, none without a destination', async () => {
    const key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
    const silent = (await createPix(key)).body.data.id as string;
    await registerEndpoint(key.tenantId, '/agree');
    const id = (await createPix(key)).body.data.id as string;
    await app.settle();
    const none = await app.gateway.ctx.db
      .selectFrom('webhook_messages')
      .select('id')
      .where('transaction_id', '=', silent)
      .execute();
    assert.equal(none.length, 0);
    const events = await app.gateway.ctx.store.read(transactionStream(id));
    const messages = await app.gateway.ctx.db
      .selectFrom('webhook_messages')
      .select(['sequence', 'type'])
      .where('transaction_id', '=', id)
      .orderBy('sequence')
      .execute();
    assert.deepEqual(
      messages.map((m) => Number(m.sequence)),
      events.map((e) => e.version),
    );
  });
});
