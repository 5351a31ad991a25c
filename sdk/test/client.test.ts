import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startAdminApp } from '../../test/support/admin.ts';
import { PAYER_ADDRESS } from '../../test/support/charges.ts';
import { type SeededKey, seedTenantAndKey } from '../../test/support/fixtures.ts';
import type { TestApp } from '../../test/support/http.ts';
import { legacyBody, seedLegacyPix } from '../../test/support/legacy-charge.ts';
import { subscriptionBody } from '../../test/support/subscriptions.ts';
import { Calebe, CalebeConnectionError, CalebeError } from '../src/index.ts';

/**
 * The SDK against a served gateway (issue 15 item 3; SPEC 9, with SPEC 4.1, 5.2, 7): real HTTP on a real
 * socket, a real database, no mock. `sent` counts the requests that left the SDK: it wraps the real fetch
 * and changes nothing, so "refused locally" means "never reached the network".
 */

let app: TestApp;
let key: SeededKey;
let liveKey: SeededKey;
let calebe: Calebe;
let sent: string[];

type PixInput = Parameters<Calebe['createPix']>[0];
type SubscriptionInput = Parameters<Calebe['createSubscription']>[0];

/** SPEC 4.1: a complete payer, as a new charge needs. */
const order = (reference = `order-${randomUUID()}`): PixInput => ({
  amount: 1250,
  reference,
  description: 'Pedido 1',
  customer: {
    name: 'Maria Silva',
    phone: '11987654321',
    address: PAYER_ADDRESS,
  },
});

const observed: typeof fetch = (input, init) => {
  sent.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
  return fetch(input, init);
};

/** The error a promise rejects with, which must be a CalebeError. */
async function calebeError(promise: Promise<unknown>): Promise<CalebeError> {
  const error = await promise.then(
    () => assert.fail('expected a CalebeError'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof CalebeError, String(error));
  return error;
}

beforeAll(async () => {
  app = await startAdminApp({ ENABLE_SIMULATOR: 'true' });
  key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
  liveKey = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
  sent = [];
  calebe = new Calebe({ baseUrl: app.baseUrl, apiKey: key.key, fetch: observed });
});
afterAll(() => app.close());

describe('SPEC 9: createPix, idempotency and replays', () => {
  test('createPix creates a test charge: 201, the Transaction, the X-Request-ID', async () => {
    const res = await calebe.createPix(order(), { idempotencyKey: randomUUID() });
    assert.equal(res.status, 201);
    assert.equal(res.replayed, false);
    assert.match(res.request_id, /.+/);
    assert.match(res.data.id, /^txn_/);
    assert.equal(res.data.status, 'pending');
    assert.equal(res.data.amount, 1250);
    // SPEC 1 / 5.2: a test key gives test charges, on the simulator.
    assert.equal(res.data.livemode, false);
    assert.equal(res.data.simulated, true);
    assert.deepEqual(res.body, { data: res.data });
  });

  test('the same key and body replay the record: 200, Idempotency-Replayed; another body is 409', async () => {
    const idempotencyKey = randomUUID();
    const body = order();
    const first = await calebe.createPix(body, { idempotencyKey });
    const again = await calebe.createPix(body, { idempotencyKey });
    assert.equal(again.status, 200);
    assert.equal(again.replayed, true);
    assert.equal(again.data.id, first.data.id);
    const conflict = await calebeError(calebe.createPix({ ...body, amount: 1300 }, { idempotencyKey }));
    assert.equal(conflict.code, 'idempotency_conflict');
    assert.equal(conflict.status, 409);
    assert.equal(conflict.local, false);
    assert.match(conflict.request_id ?? '', /.+/);
  });

  test('the Idempotency-Key is required where the server requires it, and never made up', async () => {
    sent = [];
    const call = calebe.createPix as (
      body: PixInput,
      options?: { idempotencyKey?: string },
    ) => Promise<unknown>;
    for (const options of [undefined, {}, { idempotencyKey: '' }, { idempotencyKey: 'has space' }]) {
      const error = await calebeError(call.call(calebe, order(), options));
      assert.equal(error.code, 'idempotency_key_required');
      assert.equal(error.status, 400);
      assert.equal(error.local, true);
      assert.equal(error.request_id, null);
    }
    assert.equal(sent.length, 0, 'nothing was sent');
    // The server agrees (SPEC 4): the low-level request without the header.
    const server = await calebeError(calebe.request({ method: 'POST', path: '/v1/pix', body: order() }));
    assert.equal(server.code, 'idempotency_key_required');
    assert.equal(server.local, false);
  });
});

describe('SPEC 9 / 7: local validation with the server schemas, typed errors', () => {
  test('an amount that is not an integer is refused before the network, with the code the server gives', async () => {
    sent = [];
    const local = await calebeError(
      calebe.createPix({ ...order(), amount: 12.5 }, { idempotencyKey: randomUUID() }),
    );
    assert.equal(sent.length, 0, 'nothing was sent');
    assert.equal(local.local, true);
    assert.equal(local.param, 'amount');
    assert.equal(local.request_id, null);
    // SPEC 7 "incompatible value": the same body sent as is gets the same code and field from the gateway.
    const server = await calebeError(
      calebe.request({
        method: 'POST',
        path: '/v1/pix',
        body: { ...order(), amount: 12.5 },
        idempotencyKey: randomUUID(),
      }),
    );
    assert.equal(server.local, false);
    assert.equal(local.code, server.code);
    assert.equal(local.status, server.status);
    assert.equal(local.param, server.param);
    assert.equal(server.code, 'invalid_json');
    // Reais are never turned into centavos: 12.50 stays a refusal, whatever its spelling.
    for (const amount of [12.5, 0.1, 1250.0001, Number.NaN, '1250']) {
      const e = await calebeError(
        calebe.createPix({ ...order(), amount } as PixInput, { idempotencyKey: randomUUID() }),
      );
      assert.equal(e.local, true);
      assert.equal(e.param, 'amount');
    }
    assert.deepEqual(sent.filter((s) => s.startsWith('POST')).length, 1, 'only the deliberate raw request');
  });

  test('a value outside its rule is 422 validation_error locally and on the server', async () => {
    sent = [];
    for (const [body, param] of [
      [{ ...order(), amount: 0 }, 'amount'],
      [{ ...order(), amount: 100_000_001 }, 'amount'],
      [{ ...order(), expires_in: 59 }, 'expires_in'],
      [{ ...order(), customer: { ...order().customer, address: undefined } }, 'customer.address'],
    ] as const) {
      const local = await calebeError(calebe.createPix(body as PixInput, { idempotencyKey: randomUUID() }));
      const server = await calebeError(
        calebe.request({ method: 'POST', path: '/v1/pix', body, idempotencyKey: randomUUID() }),
      );
      assert.equal(local.code, 'validation_error', `${param}: ${local.message}`);
      assert.equal(local.status, 422);
      assert.equal(local.param, param);
      assert.equal(server.code, local.code, `${param}: ${server.message}`);
      assert.equal(server.param, local.param);
    }
    assert.equal(sent.length, 4, 'only the raw requests left the SDK');
  });

  test('SPEC 9 "createPix is strict": a new charge without phone is refused locally, as the server does', async () => {
    const body = legacyBody() as PixInput;
    const local = await calebeError(calebe.createPix(body, { idempotencyKey: randomUUID() }));
    assert.equal(local.code, 'validation_error');
    assert.equal(local.param, 'customer.phone');
    const server = await calebeError(
      calebe.request({ method: 'POST', path: '/v1/pix', body, idempotencyKey: randomUUID() }),
    );
    assert.equal(server.code, 'validation_error');
    assert.equal(server.param, 'customer.phone');
  });

  test('unknown fields are 400 invalid_json, locally as on the server', async () => {
    const body = { ...order(), provider_id: 'prv_1' } as PixInput;
    const local = await calebeError(calebe.createPix(body, { idempotencyKey: randomUUID() }));
    const server = await calebeError(
      calebe.request({ method: 'POST', path: '/v1/pix', body, idempotencyKey: randomUUID() }),
    );
    assert.equal(local.code, 'invalid_json');
    assert.equal(local.param, 'provider_id');
    assert.equal(server.code, local.code);
    assert.equal(server.param, local.param);
  });

  test('a server 4xx becomes a CalebeError with its code, status and request_id', async () => {
    const error = await calebeError(calebe.getTransaction('txn_does_not_exist'));
    assert.equal(error.code, 'not_found');
    assert.equal(error.status, 404);
    assert.equal(error.local, false);
    assert.match(error.request_id ?? '', /.+/);
    assert.equal(error.transaction_id, null);
  });

  test('query values are checked as the server reads them (strings), and sent as such', async () => {
    const created = await calebe.createPix(order('listed'), { idempotencyKey: randomUUID() });
    const list = await calebe.listTransactions({ reference: 'listed', include_descendants: true, limit: 5 });
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.data.map((t) => t.id),
      [created.data.id],
    );
    assert.deepEqual(list.meta, { limit: 5, offset: 0, count: 1 });
    sent = [];
    const local = await calebeError(calebe.listTransactions({ limit: 0 }));
    assert.equal(sent.length, 0, 'nothing was sent');
    const server = await calebeError(
      calebe.request({ method: 'GET', path: '/v1/transactions', query: { limit: 0 } }),
    );
    assert.equal(local.code, 'validation_error');
    assert.equal(local.param, 'query.limit');
    assert.equal(server.code, local.code);
    assert.equal(server.param, local.param);
  });

  test('simulate, refund (optional body) and the creation snapshot through their methods', async () => {
    const { data: pix } = await calebe.createPix(order(), { idempotencyKey: randomUUID() });
    const paid = await calebe.simulateTransaction(pix.id, { status: 'paid' });
    assert.equal(paid.data.status, 'paid');
    const refunded = await calebe.refundTransaction(pix.id, undefined, { idempotencyKey: randomUUID() });
    assert.equal(refunded.data.status, 'refunded');
    const snapshot = await calebe.getTransactionRequest(pix.id);
    assert.equal(snapshot.data.source, 'captured');
    assert.equal(snapshot.data.request.amount, 1250);
  });
});

describe('issue 26 item 6: test clocks through their methods', () => {
  test('create (Idempotency-Key required, never made up), get, list, advance, delete', async () => {
    const idempotencyKey = randomUUID();
    const before = sent.length;
    const missing = await calebeError(
      // @ts-expect-error the options with the key are required
      calebe.createTestClock({ frozen_time: '2027-01-31T12:00:00Z' }),
    );
    assert.equal(missing.code, 'idempotency_key_required');
    assert.equal(sent.length, before, 'refused before the network');
    const made = await calebe.createTestClock({ frozen_time: '2027-01-31T12:00:00Z' }, { idempotencyKey });
    assert.equal(made.status, 201);
    assert.equal(made.data.frozen_time, '2027-01-31T12:00:00.000Z');
    const again = await calebe.createTestClock({ frozen_time: '2027-01-31T12:00:00Z' }, { idempotencyKey });
    assert.equal(again.status, 200);
    assert.equal(again.replayed, true);
    const id = made.data.id;
    assert.equal((await calebe.getTestClock(id)).data.id, id);
    assert.ok((await calebe.listTestClocks({ limit: 100 })).data.some((c) => c.id === id));
    const moved = await calebe.advanceTestClock(id, { frozen_time: '2027-02-28T12:00:00Z' });
    assert.equal(moved.data.frozen_time, '2027-02-28T12:00:00.000Z');
    assert.equal(moved.data.status, 'ready');
    const back = await calebeError(calebe.advanceTestClock(id, { frozen_time: '2027-01-01T00:00:00Z' }));
    assert.equal(back.code, 'validation_error');
    assert.equal((await calebe.deleteTestClock(id)).status, 204);
    assert.equal((await calebeError(calebe.getTestClock(id))).code, 'not_found');
  });
});

describe('SPEC 9: no retries', () => {
  test('no answer is a CalebeConnectionError after exactly one attempt', async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    sent = [];
    const offline = new Calebe({ baseUrl: `http://127.0.0.1:${port}`, apiKey: key.key, fetch: observed });
    const error = await offline.createPix(order(), { idempotencyKey: randomUUID() }).then(
      () => assert.fail('expected a connection error'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof CalebeConnectionError, String(error));
    assert.deepEqual(sent, ['POST /v1/pix']);
  });
});

describe('SPEC 5.2: livemode from the key prefix', () => {
  test('clb_test_ is test mode, clb_live_ and the older clb_ are production; anything else is refused', async () => {
    assert.equal(calebe.livemode, false);
    assert.equal(new Calebe({ baseUrl: app.baseUrl, apiKey: liveKey.key }).livemode, true);
    assert.equal(new Calebe({ baseUrl: app.baseUrl, apiKey: 'clb_0123456789abcdef' }).livemode, true);
    assert.equal(new Calebe({ baseUrl: app.baseUrl }).livemode, undefined);
    assert.throws(() => new Calebe({ baseUrl: app.baseUrl, apiKey: 'sk_test_123' }), TypeError);
    // The server agrees: the test key's charges are test charges, the live key reads production only.
    const { data } = await calebe.createPix(order(), { idempotencyKey: randomUUID() });
    assert.equal(data.livemode, calebe.livemode);
    const live = new Calebe({ baseUrl: app.baseUrl, apiKey: liveKey.key });
    const error = await calebeError(live.getTransaction(data.id));
    assert.equal(error.code, 'not_found');
  });
});

describe('SPEC 5.6: panel operations take a session token', () => {
  test('createSession, then the panel API with the token; without one, 401 before the network', async () => {
    const anonymous = new Calebe({ baseUrl: app.baseUrl });
    const session = await anonymous.createSession({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    assert.equal(session.status, 201);
    const panel = new Calebe({ baseUrl: app.baseUrl, sessionToken: session.data.token });
    const tenants = await panel.listTenants({ limit: 100 });
    assert.ok(tenants.data.some((t) => t.id === key.tenantId));
    const callback = await panel.getWebhookCallbackSecret({ tenant_id: key.tenantId, mode: 'test' });
    assert.match(callback.data.secret, /^whsec_/);
    sent = [];
    const noSession = new Calebe({ baseUrl: app.baseUrl, apiKey: key.key, fetch: observed });
    const error = await calebeError(noSession.listTenants());
    assert.equal(error.code, 'unauthorized');
    assert.equal(error.local, true);
    assert.equal(sent.length, 0, 'nothing was sent');
    const out = await panel.deleteCurrentSession();
    assert.equal(out.status, 204);
    assert.equal((await calebeError(panel.listTenants())).code, 'unauthorized');
  });
});

describe('SPEC 4.1 / 9: a deliberate legacy replay through the low-level request', () => {
  test('the original saved body replays the old record; createPix refuses it; adding fields is 409', async () => {
    const idempotencyKey = `legacy-${randomUUID()}`;
    const id = await seedLegacyPix(app.gateway.ctx, key, idempotencyKey);
    // The body exactly as it was saved back then (a string goes out byte for byte).
    const saved = JSON.stringify(legacyBody());
    const replay = await calebe.request<{ data: { id: string; status: string } }>({
      method: 'POST',
      path: '/v1/pix',
      body: saved,
      idempotencyKey,
    });
    assert.equal(replay.status, 200);
    assert.equal(replay.replayed, true);
    assert.equal(replay.data.id, id);
    // The strict method refuses the incomplete body before the network.
    const strict = await calebeError(calebe.createPix(legacyBody() as PixInput, { idempotencyKey }));
    assert.equal(strict.local, true);
    assert.equal(strict.param, 'customer.phone');
    // Completing the old body is another body under the same key.
    const conflict = await calebeError(
      calebe.createPix({ ...order(), reference: 'legacy-1' }, { idempotencyKey }),
    );
    assert.equal(conflict.code, 'idempotency_conflict');
  });
});

describe('SPEC 4.10 / 9: subscriptions through the SDK', () => {
  test('create, replay, get, list, cycles, pause; then the panel deletes it', async () => {
    const body = subscriptionBody() as SubscriptionInput;
    const idempotencyKey = randomUUID();
    const created = await calebe.createSubscription(body, { idempotencyKey });
    assert.equal(created.status, 201);
    assert.match(created.data.id, /^sub_/);
    assert.equal(created.data.status, 'active');
    const again = await calebe.createSubscription(body, { idempotencyKey });
    assert.equal(again.status, 200);
    assert.equal(again.replayed, true);
    assert.equal(again.data.id, created.data.id);
    assert.equal((await calebe.getSubscription(created.data.id)).data.id, created.data.id);
    await app.settle();
    const list = await calebe.listSubscriptions({ status: 'active', limit: 10 });
    assert.deepEqual(
      list.data.map((s) => s.id),
      [created.data.id],
    );
    // The first cycle is issued at creation (SPEC 3.3).
    const cycles = await calebe.listSubscriptionCycles(created.data.id, {});
    assert.deepEqual(
      cycles.data.map((c) => [c.cycle, c.status]),
      [[1, 'created']],
    );
    const paused = await calebe.updateSubscription(created.data.id, { status: 'paused' });
    assert.equal(paused.data.status, 'paused');
    const session = await new Calebe({ baseUrl: app.baseUrl }).createSession({
      email: ADMIN_EMAIL,
      password: ADMIN_PASSWORD,
    });
    const panel = new Calebe({ baseUrl: app.baseUrl, sessionToken: session.data.token });
    assert.equal((await panel.deleteSubscription(created.data.id)).status, 204);
    assert.equal((await calebeError(calebe.getSubscription(created.data.id))).code, 'not_found');
  });

  test('bad input is refused locally, with the code and field the server gives', async () => {
    sent = [];
    for (const [over, param] of [
      [{ interval_months: 0 }, 'interval_months'],
      [{ method: 'credit_card' }, 'credit_card'],
      [{ authorization_id: 'pxa_1' }, 'authorization_id'],
    ] as const) {
      const body = subscriptionBody(over) as SubscriptionInput;
      const local = await calebeError(calebe.createSubscription(body, { idempotencyKey: randomUUID() }));
      assert.equal(local.code, 'validation_error');
      assert.equal(local.local, true);
      assert.equal(local.param, param);
      const server = await calebeError(
        calebe.request({ method: 'POST', path: '/v1/subscriptions', body, idempotencyKey: randomUUID() }),
      );
      assert.equal(server.code, local.code);
      assert.equal(server.param, local.param);
    }
    const empty = await calebeError(calebe.updateSubscription('sub_x', {}));
    assert.equal(empty.code, 'validation_error');
    assert.equal(empty.local, true);
    assert.equal(sent.length, 3, 'only the raw requests left the SDK');
  });
});
