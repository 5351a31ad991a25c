import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { WebhookDeliveryWorker } from '../../src/workers/webhook-delivery.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, assertError, bearer, logIn, startAdminApp } from '../support/admin.ts';
import { type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';
import { dueIn, subscriptionBody, subscriptionCard } from '../support/subscriptions.ts';

/**
 * The first charge at creation over HTTP (issue 26 item 3; SPEC 2.5, 3.3, 4.10, 6; docs/decisions.md
 * "Subscriptions (issue 26)"): the `201` already carries cycle 1 with its charge (boleto), its checkout link
 * (Pix) or its card debit; a replay issues nothing more; a card due later records cycle 0 (the registration)
 * and charges nothing; a card refused at registration cancels the subscription; without a routing rule the
 * subscription exists with `last_error` and a retry 15 minutes later; the cycle's charge reaches the
 * subscription's callback_url.
 */

const FIFTEEN_MINUTES = 15 * 60_000;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real receiver on loopback (allowed through WEBHOOK_ALLOWED_PRIVATE_HOSTS). */
const receiver = { server: undefined as Server | undefined, port: 0, received: [] as Received[] };

let app: TestApp;
/** A gateway without the simulator's global rule: nothing routes a test boleto (SPEC 2.8). */
let unrouted: TestApp;
let owner: SeededKey;
let adminToken: string;

// biome-ignore lint/suspicious/noExplicitAny: response JSON, already validated against /openapi.json
type Json = any;

function post(on: TestApp, key: string, json: unknown, idempotencyKey = randomUUID()) {
  return on.request('POST', '/v1/subscriptions', {
    headers: { 'x-api-key': key, 'idempotency-key': idempotencyKey },
    json,
  });
}
const get = (on: TestApp, key: string, path: string) =>
  on.request('GET', path, { headers: { 'x-api-key': key } });

async function created(over: Record<string, unknown>): Promise<Json> {
  const res = await post(app, owner.key, subscriptionBody(over));
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

async function cyclesOf(on: TestApp, key: string, id: string): Promise<Json[]> {
  await on.settle();
  const res = await get(on, key, `/v1/subscriptions/${id}/cycles`);
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function chargesByReference(reference: string): Promise<Json[]> {
  await app.settle();
  const res = await get(app, owner.key, `/v1/transactions?reference=${encodeURIComponent(reference)}`);
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function transaction(id: string): Promise<Json> {
  const res = await get(app, owner.key, `/v1/transactions/${id}`);
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

beforeAll(async () => {
  receiver.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      receiver.received.push({
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.server?.listen(0, '127.0.0.1', resolve));
  receiver.port = (receiver.server.address() as AddressInfo).port;
  app = await startAdminApp({
    ENABLE_SIMULATOR: 'true',
    CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_ALLOWED_PRIVATE_HOSTS: `127.0.0.1:${receiver.port}`,
  });
  owner = await seedTenantAndKey(app.gateway.ctx, { tenantName: 'Academia Forma' });
  adminToken = await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD);
  unrouted = await startTestApp({ ENABLE_SIMULATOR: 'false' });
});

afterAll(async () => {
  await app.close();
  await unrouted.close();
  await new Promise((resolve) => receiver.server?.close(resolve));
});

describe('boleto: cycle 1 issued by the creating request (SPEC 3.3, 4.10)', () => {
  test('the 201 has cycle 1: one created cycle due on first_due_date, its boleto referenced sub_<id>:<date>', async () => {
    const first = dueIn(10);
    const sub = await created({ first_due_date: first });
    assert.equal(sub.cycle, 1);
    assert.equal(sub.last_error, null);
    assert.equal(sub.next_attempt_at, null);

    const cycles = await cyclesOf(app, owner.key, sub.id);
    assert.equal(cycles.length, 1);
    const [c] = cycles;
    assert.match(c.id, /^scy_/);
    assert.equal(c.subscription_id, sub.id);
    assert.equal(c.cycle, 1);
    assert.equal(c.due_date, first);
    assert.equal(c.status, 'created');
    assert.equal(c.transaction_status, 'pending');
    assert.equal(c.checkout_id, null);
    assert.equal(c.error_code, null);

    const tx = await transaction(c.transaction_id);
    // SPEC 4.10: the reference is sub_<subscription_id>:<YYYY-MM-DD>; ids start with sub_ themselves.
    assert.equal(tx.reference, `sub_${sub.id}:${first}`);
    assert.ok(tx.reference.startsWith('sub_sub_'));
    assert.equal(tx.method, 'boleto');
    assert.equal(tx.amount, 4990);
    assert.equal(tx.description, 'Mensalidade');
    assert.equal(tx.status, 'pending');
    // SPEC 2.5: the boleto's payment_url is the charge document.
    assert.equal(c.payment_url, tx.document_url);

    // SPEC 4.10: no instruction, penalty or interest (SPEC 2.3: zero defaults may be omitted).
    const snapshot = await get(app, owner.key, `/v1/transactions/${tx.id}/request`);
    assert.equal(snapshot.status, 200, snapshot.text);
    const boleto = snapshot.body.data.request.boleto ?? {};
    assert.equal(boleto.due_date, first);
    assert.ok(!boleto.instruction, JSON.stringify(boleto));
    assert.ok(!boleto.penalty_rate, JSON.stringify(boleto));
    assert.ok(!boleto.interest_rate, JSON.stringify(boleto));
  });

  test('a replay answers 200 Idempotency-Replayed and never issues another first charge', async () => {
    const key = randomUUID();
    const body = subscriptionBody({ first_due_date: dueIn(12) });
    const first = await post(app, owner.key, body, key);
    assert.equal(first.status, 201, first.text);
    const again = await post(app, owner.key, body, key);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.equal(again.body.data.id, first.body.data.id);
    assert.equal(again.body.data.cycle, 1);
    const id = first.body.data.id;
    assert.equal((await chargesByReference(`sub_${id}:${dueIn(12)}`)).length, 1);
    assert.equal((await cyclesOf(app, owner.key, id)).length, 1);
  });

  test("the cycle's charge sends transaction.created to the subscription's callback_url (SPEC 6)", async () => {
    const callback = `http://127.0.0.1:${receiver.port}/subscription-hooks`;
    const sub = await created({ callback_url: callback });
    assert.equal(sub.callback_url, callback);
    const [c] = await cyclesOf(app, owner.key, sub.id);
    const worker = new WebhookDeliveryWorker(app.gateway.ctx, { intervalMs: 1000, concurrency: 4 });
    await app.settle();
    while ((await worker.runOnce()) > 0) {}
    const secret = await app.request(
      'GET',
      `/admin/webhook-callback-secret?tenant_id=${owner.tenantId}&mode=test`,
      { headers: bearer(adminToken) },
    );
    assert.equal(secret.status, 200, secret.text);
    const events = receiver.received
      .filter((r) => r.path === '/subscription-hooks')
      .map(
        (r) =>
          new Webhook(secret.body.data.secret).verify(r.body, {
            'webhook-id': String(r.headers['webhook-id']),
            'webhook-timestamp': String(r.headers['webhook-timestamp']),
            'webhook-signature': String(r.headers['webhook-signature']),
          }) as { type: string; data: { id: string; reference: string; callback_url: string } },
      );
    const createdEvent = events.find((e) => e.type === 'transaction.created');
    assert.ok(createdEvent, JSON.stringify(events));
    assert.equal(createdEvent.data.id, c.transaction_id);
    assert.equal(createdEvent.data.reference, `sub_${sub.id}:${sub.first_due_date}`);
  });
});

describe('Pix: cycle 1 is a checkout link (SPEC 2.5, 4.10)', () => {
  test('cycle 1 has checkout_id and the link as payment_url; no transaction until the payer chooses to pay', async () => {
    const sub = await created({ method: 'pix', first_due_date: dueIn(5) });
    assert.equal(sub.cycle, 1);
    const [c] = await cyclesOf(app, owner.key, sub.id);
    assert.equal(c.cycle, 1);
    assert.equal(c.status, 'created');
    assert.match(c.checkout_id, /^chk_/);
    assert.equal(c.transaction_id, null);
    assert.equal(c.transaction_status, null);
    const checkout = await get(app, owner.key, `/v1/checkouts/${c.checkout_id}`);
    assert.equal(checkout.status, 200, checkout.text);
    assert.equal(c.payment_url, checkout.body.data.url);
    assert.deepEqual(checkout.body.data.methods, ['pix']);
    assert.equal(checkout.body.data.amount, 4990);
    assert.equal(checkout.body.data.reference, `sub_${sub.id}:${sub.first_due_date}`);
    // SPEC 4.10: the link is open until the end of the due day, Brasilia time (UTC-3).
    assert.equal(
      Date.parse(checkout.body.data.expires_at),
      Date.parse(`${sub.first_due_date}T23:59:59.999-03:00`),
    );
  });
});

describe('card: registration at creation, cycle 1 on its due day, cycle 0 for a later one (SPEC 2.5, 3.3, 4.10)', () => {
  test('due today: cycle 1 charged at creation with the approved test card (paid)', async () => {
    const today = dueIn(0);
    const sub = await created({
      method: 'credit_card',
      first_due_date: today,
      credit_card: subscriptionCard(),
    });
    assert.equal(sub.status, 'active');
    assert.equal(sub.cycle, 1);
    const cycles = await cyclesOf(app, owner.key, sub.id);
    assert.equal(cycles.length, 1);
    const [c] = cycles;
    assert.equal(c.cycle, 1);
    assert.equal(c.due_date, today);
    assert.equal(c.status, 'created');
    assert.equal(c.transaction_status, 'paid');
    const tx = await transaction(c.transaction_id);
    assert.equal(tx.method, 'credit_card');
    assert.equal(tx.reference, `sub_${sub.id}:${today}`);
    assert.equal(tx.credit_card.last_four, '1111');
    assert.equal(tx.credit_card.installments, 1);
  });

  test('due later: cycle 0 records the registration (created, no transaction) and nothing is charged', async () => {
    const first = dueIn(20);
    const sub = await created({
      method: 'credit_card',
      first_due_date: first,
      credit_card: subscriptionCard(),
    });
    assert.equal(sub.status, 'active');
    assert.equal(sub.next_due_date, first);
    const cycles = await cyclesOf(app, owner.key, sub.id);
    assert.equal(cycles.length, 1);
    const [c] = cycles;
    assert.equal(c.cycle, 0);
    assert.equal(c.status, 'created');
    assert.equal(c.transaction_id, null);
    assert.equal(c.checkout_id, null);
    assert.equal(c.error_code, null);
    assert.deepEqual(await chargesByReference(`sub_${sub.id}:${first}`), []);
  });

  test('due today with a declined test card: the cycle needs attention (provider_rejected), never resent', async () => {
    const today = dueIn(0);
    const sub = await created({
      method: 'credit_card',
      first_due_date: today,
      credit_card: subscriptionCard({ number: '4000000000000002' }),
    });
    const [c] = await cyclesOf(app, owner.key, sub.id);
    assert.equal(c.cycle, 1);
    assert.equal(c.status, 'attention');
    assert.equal(c.error_code, 'provider_rejected');
    assert.equal(c.transaction_status, 'failed');
    assert.equal((await chargesByReference(`sub_${sub.id}:${today}`)).length, 1);
  });

  test('a card the registration refuses: 502 provider_rejected with subscription_id, the subscription cancelled', async () => {
    // A Luhn-valid number outside the documented test cards: the simulator refuses to tokenize it.
    const res = await post(
      app,
      owner.key,
      subscriptionBody({
        method: 'credit_card',
        first_due_date: dueIn(20),
        credit_card: subscriptionCard({ number: '4242424242424242' }),
      }),
    );
    assertError(res, 502, 'provider_rejected');
    const id = res.body.error.subscription_id;
    assert.match(id, /^sub_/);
    const sub = await get(app, owner.key, `/v1/subscriptions/${id}`);
    assert.equal(sub.status, 200, sub.text);
    assert.equal(sub.body.data.status, 'cancelled');
    assert.deepEqual(await cyclesOf(app, owner.key, id), []);
  });
});

describe('no routing rule: the subscription exists, last_error, retried in 15 minutes (SPEC 4.10)', () => {
  test('boleto without a rule: 201, last_error provider_not_configured, next_attempt_at creation + 15 min, cycle pending', async () => {
    const at = new Date();
    unrouted.gateway.ctx.now = () => at;
    const key = await seedTenantAndKey(unrouted.gateway.ctx, { tenantName: 'Sem regra' });
    const res = await post(unrouted, key.key, subscriptionBody({ first_due_date: dueIn(10, at) }));
    assert.equal(res.status, 201, res.text);
    const sub = res.body.data;
    assert.equal(sub.status, 'active');
    assert.equal(sub.last_error, 'provider_not_configured');
    assert.equal(sub.next_attempt_at, new Date(at.getTime() + FIFTEEN_MINUTES).toISOString());
    const cycles = await cyclesOf(unrouted, key.key, sub.id);
    assert.deepEqual(
      cycles.map((c: Json) => [c.cycle, c.status, c.transaction_id]),
      [[1, 'pending', null]],
    );
  });
});
