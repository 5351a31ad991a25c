import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import { SCOPES } from '../../src/aggregates/access.ts';
import { issueApiKey } from '../../src/commands/api-keys/issue/handler.ts';
import { TEST_CARDS } from '../../src/providers/test-cards.ts';
import { WebhookDeliveryWorker } from '../../src/workers/webhook-delivery.ts';
import { assertError } from '../support/admin.ts';
import { type CardCalls, cardBody, countingCards, expirationMonths, newCardCalls } from '../support/cards.ts';
import { pixBody } from '../support/charges.ts';
import { commandDeps, type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp, type TestResponse } from '../support/http.ts';
import { decorateProviders } from '../support/provider-registry.ts';

/**
 * `POST /v1/credit-card` on the simulator (issue 25 items 1-3; SPEC 1 simulator row, 2.2, 3.1, 4 common rules,
 * 4.3, 4.6, 4.7, 4.8, 4.9, 5.3, 5.4, 5.5, 6, 7, 8): test keys and a live key routed to the simulator. Expected
 * outcomes are the documented test cards' (README "Test cards", issue 25 item 3): approved per brand, declined
 * 05 and 51, uncertain; every other number is refused in test mode without reaching anything.
 */

let app: TestApp;
let live: SeededKey;
let testKey: SeededKey;
let outsider: SeededKey;
const calls: CardCalls = newCardCalls();

const receiver: { server?: Server; port: number; bodies: { path: string; body: string }[] } = {
  port: 0,
  bodies: [],
};

beforeAll(async () => {
  receiver.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      receiver.bodies.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.server?.listen(0, '127.0.0.1', resolve));
  receiver.port = (receiver.server.address() as AddressInfo).port;
  app = await startTestApp(
    {
      CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      ENABLE_SIMULATOR: 'true',
      RATE_LIMIT_PER_MINUTE: '100000',
      WEBHOOK_ALLOWED_PRIVATE_HOSTS: `127.0.0.1:${receiver.port}`,
    },
    (gw) =>
      decorateProviders(gw.ctx, (adapter, kind) =>
        kind === 'simulator' ? countingCards(adapter, calls) : adapter,
      ),
  );
  live = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
  testKey = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
  outsider = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
});
afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => receiver.server?.close(resolve));
});
beforeEach(() => {
  Object.assign(calls, newCardCalls());
});

const headers = (key: string, idem: string | null = randomUUID()) => ({
  'x-api-key': key,
  ...(idem === null ? {} : { 'idempotency-key': idem }),
});

function charge(key: string, json: unknown, idem: string | null = randomUUID()): Promise<TestResponse> {
  return app.request('POST', '/v1/credit-card', { headers: headers(key, idem), json });
}

const read = (key: string, id: string) =>
  app.request('GET', `/v1/transactions/${id}`, { headers: { 'x-api-key': key } });

const refund = (key: string, id: string, idem: string = randomUUID()) =>
  app.request('POST', `/v1/transactions/${id}/refund`, { headers: headers(key, idem), json: {} });

/** A card charge's secrets never come back (issue 25 item 2). */
function assertNoCardData(res: TestResponse, number: string, code: string): void {
  assert.ok(!res.text.includes(number), 'the number is never echoed');
  assert.ok(!res.text.includes(`"${code}"`), 'the security code is never echoed');
  assert.ok(!/simcard:/.test(res.text), 'the provider token is never shown');
}

function assertValidation(res: TestResponse, param: string): void {
  assertError(res, 422, 'validation_error');
  assert.equal(res.body.error.param, param, res.text);
}

describe('POST /v1/credit-card on the simulator: outcomes (issue 25 item 3; SPEC 3.1)', () => {
  test('201 paid: method and paid_with credit_card, the masked card with a card_… id, never the number or code', async () => {
    const body = cardBody({ number: '4111111111111111', security_code: '321', holder: '  MARIA SILVA ' });
    const res = await charge(testKey.key, body);
    assert.equal(res.status, 201, res.text);
    const data = res.body.data;
    assert.match(data.id, /^txn_/);
    assert.equal(data.status, 'paid');
    assert.equal(data.method, 'credit_card');
    assert.equal(data.paid_with, 'credit_card');
    assert.equal(data.amount, 1250);
    assert.equal(data.livemode, false);
    assert.equal(data.simulated, true);
    assert.equal(typeof data.paid_at, 'string');
    assert.match(data.credit_card.card_id, /^card_/);
    assert.equal(data.credit_card.brand, 'visa');
    assert.equal(data.credit_card.last_four, '1111');
    assert.equal(data.credit_card.holder, 'MARIA SILVA');
    assert.equal(data.credit_card.expiration, (body.credit_card as { expiration: string }).expiration);
    assert.equal(data.credit_card.installments, 1);
    assertNoCardData(res, '4111111111111111', '321');
    assert.deepEqual([calls.tokenize, calls.charge], [1, 1]);
    const got = await read(testKey.key, data.id);
    assert.equal(got.status, 200);
    assert.equal(got.body.data.status, 'paid');
    assert.deepEqual(got.body.data.credit_card, data.credit_card);
  });

  test('a live key routed to the simulator: 201 paid, livemode true, simulated (SPEC 1)', async () => {
    const res = await charge(live.key, cardBody({ number: '5555555555554444' }, { installments: 3 }));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.status, 'paid');
    assert.equal(res.body.data.livemode, true);
    assert.equal(res.body.data.simulated, true);
    assert.equal(res.body.data.credit_card.brand, 'mastercard');
    assert.equal(res.body.data.credit_card.installments, 3);
  });

  for (const card of TEST_CARDS) {
    test(`test card ${card.number} (${card.brand}, ${card.outcome})`, async () => {
      const code = card.brand === 'amex' ? '1234' : '123';
      const res = await charge(testKey.key, cardBody({ number: card.number, security_code: code }));
      assertNoCardData(res, card.number, code);
      if (card.outcome === 'approved') {
        assert.equal(res.status, 201, res.text);
        assert.equal(res.body.data.status, 'paid');
        assert.equal(res.body.data.credit_card.brand, card.brand);
        assert.equal(res.body.data.credit_card.last_four, card.number.slice(-4));
        return;
      }
      if (card.outcome === 'uncertain') {
        // SPEC 3.1: an uncertain answer is 202 unknown, never sent again.
        assert.equal(res.status, 202, res.text);
        assert.equal(res.body.data.status, 'unknown');
        assert.equal(res.body.data.paid_with, null);
        assert.equal(calls.charge, 1);
        return;
      }
      assertError(res, 502, 'provider_rejected');
      const id = res.body.error.transaction_id;
      assert.match(id, /^txn_/);
      assert.equal(res.body.error.provider_error_code, card.outcome === 'declined' ? '05' : '51');
      const got = await read(testKey.key, id);
      assert.equal(got.body.data.status, 'failed');
      assert.equal(got.body.data.failure_code, 'provider_rejected');
      assert.equal(got.body.data.credit_card.card_id, null, 'a declined card is not kept');
    });
  }

  test('a number that is no test card, with a test key: 502 provider_rejected, nothing charged', async () => {
    const res = await charge(testKey.key, cardBody({ number: '4012888888881881' }));
    assertError(res, 502, 'provider_rejected');
    assert.match(res.body.error.transaction_id, /^txn_/);
    assertNoCardData(res, '4012888888881881', '123');
    assert.equal(calls.charge, 0, 'never charged');
    const got = await read(testKey.key, res.body.error.transaction_id);
    assert.equal(got.body.data.status, 'failed');
  });
});

describe('stored cards (issue 25 item 2: card_… ids)', () => {
  test('charge again by card_id: 201 paid with the same card_id, no tokenization', async () => {
    const first = await charge(testKey.key, cardBody({ number: '378282246310005', security_code: '1234' }));
    assert.equal(first.status, 201, first.text);
    const cardId = first.body.data.credit_card.card_id;
    Object.assign(calls, newCardCalls());
    const again = await charge(testKey.key, cardBody({}, { credit_card: { card_id: cardId } }));
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.data.status, 'paid');
    assert.notEqual(again.body.data.id, first.body.data.id);
    assert.equal(again.body.data.credit_card.card_id, cardId);
    assert.equal(again.body.data.credit_card.brand, 'amex');
    assert.equal(again.body.data.credit_card.last_four, '0005');
    assert.deepEqual([calls.tokenize, calls.charge], [0, 1]);
  });

  test('card_id of another tenant, of the other mode, or made up: 422 validation_error param credit_card.card_id', async () => {
    const first = await charge(testKey.key, cardBody());
    assert.equal(first.status, 201, first.text);
    const cardId = first.body.data.credit_card.card_id;
    for (const key of [outsider.key, live.key]) {
      assertValidation(
        await charge(key, cardBody({}, { credit_card: { card_id: cardId } })),
        'credit_card.card_id',
      );
    }
    assertValidation(
      await charge(testKey.key, cardBody({}, { credit_card: { card_id: 'card_madeUp123' } })),
      'credit_card.card_id',
    );
    assert.equal(calls.charge, 1, 'only the first charge reached the simulator');
  });

  test('a card kept under a test key is not the live key’s of the same tenant (SPEC 5.2 modes)', async () => {
    const liveOfTest = await issueApiKey(
      commandDeps(app.gateway.ctx),
      {
        tenantId: testKey.tenantId,
        livemode: true,
        name: 'live',
        scopes: SCOPES,
        accessProfile: 'standard',
        createdBy: 'system:test',
      },
      { actor: 'system:test', request_id: 'req_test' },
    );
    const first = await charge(testKey.key, cardBody());
    assert.equal(first.status, 201, first.text);
    const res = await charge(
      liveOfTest.key,
      cardBody({}, { credit_card: { card_id: first.body.data.credit_card.card_id } }),
    );
    assertValidation(res, 'credit_card.card_id');
  });
});

describe('validation (issue 25 item 1; SPEC 4 common rules, 7)', () => {
  test('card_id and card data together: 422', async () => {
    const res = await charge(testKey.key, cardBody({ card_id: 'card_abc' }));
    assertError(res, 422, 'validation_error');
    assert.match(res.body.error.param, /^credit_card\./);
  });

  test('a missing card data field: 422 with its param', async () => {
    for (const field of ['holder', 'number', 'expiration', 'security_code']) {
      const body = cardBody();
      delete (body.credit_card as Record<string, unknown>)[field];
      assertValidation(await charge(testKey.key, body), `credit_card.${field}`);
    }
  });

  test('bad number, expiration, security code and installments: 422 validation_error with the param', async () => {
    const cases: [Record<string, unknown>, Record<string, unknown>, string][] = [
      [{ number: '4111111111111112' }, {}, 'credit_card.number'], // Luhn
      [{ number: '411111111116' }, {}, 'credit_card.number'], // 12 digits, Luhn-valid
      [{ number: '41111111111111111113' }, {}, 'credit_card.number'], // 20 digits
      [{ number: '4111 1111 1111 1111' }, {}, 'credit_card.number'],
      [{ expiration: expirationMonths(-1) }, {}, 'credit_card.expiration'], // last month in Sao Paulo
      [{ expiration: '13/2030' }, {}, 'credit_card.expiration'],
      [{ expiration: '1/2030' }, {}, 'credit_card.expiration'],
      [{ expiration: '01/30' }, {}, 'credit_card.expiration'],
      [{ expiration: '2030-01' }, {}, 'credit_card.expiration'],
      [{ security_code: '12' }, {}, 'credit_card.security_code'],
      [{ security_code: '12345' }, {}, 'credit_card.security_code'],
      [{}, { installments: 0 }, 'installments'],
      [{}, { installments: 13 }, 'installments'],
    ];
    for (const [card, top, param] of cases) {
      const res = await charge(testKey.key, cardBody(card, top));
      assertValidation(res, param);
      assert.ok(!res.text.includes('4111111111111112'));
    }
    // This month is still valid (SPEC: not in the past).
    const current = await charge(testKey.key, cardBody({ expiration: expirationMonths(0) }));
    assert.equal(current.status, 201, current.text);
  });

  // SPEC 4 common rules and 7: an incompatible value is 400 invalid_json, as a fractional amount is (SPEC 4.1).
  test('installments 1.5: 400 invalid_json with the param, never charged', async () => {
    const res = await charge(testKey.key, cardBody({}, { installments: 1.5 }));
    assertError(res, 400, 'invalid_json');
    assert.equal(res.body.error.param, 'installments');
    assert.equal(calls.charge, 0);
  });

  test('unknown or duplicate fields: 400 invalid_json; tenant_id: 422 tenant_from_api_key; no Idempotency-Key: 400', async () => {
    assertError(await charge(testKey.key, cardBody({ cvv: '123' })), 400, 'invalid_json');
    assertError(await charge(testKey.key, cardBody({}, { colour: 'red' })), 400, 'invalid_json');
    const text = JSON.stringify(cardBody()).replace('"amount":1250', '"amount":1250,"amount":1250');
    const dup = await app.request('POST', '/v1/credit-card', { headers: headers(testKey.key), raw: text });
    assertError(dup, 400, 'invalid_json');
    assertError(
      await charge(testKey.key, cardBody({}, { tenant_id: testKey.tenantId })),
      422,
      'tenant_from_api_key',
    );
    const noKey = await charge(testKey.key, cardBody(), null);
    assert.equal(noKey.status, 400, noKey.text);
    assert.equal(calls.charge, 0);
  });
});

describe('idempotency (SPEC 4 common rules, 3.1)', () => {
  test('replay: 200 Idempotency-Replayed, same record, no second charge', async () => {
    const idem = randomUUID();
    const first = await charge(testKey.key, cardBody(), idem);
    assert.equal(first.status, 201, first.text);
    const replay = await charge(testKey.key, cardBody(), idem);
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.headers.get('idempotency-replayed'), 'true');
    assert.equal(replay.body.data.id, first.body.data.id);
    assert.equal(replay.body.data.credit_card.card_id, first.body.data.credit_card.card_id);
    assert.deepEqual([calls.tokenize, calls.charge], [1, 1]);
  });

  test('same key with another number, another security code, or a Pix body: 409 idempotency_conflict', async () => {
    const idem = randomUUID();
    assert.equal((await charge(testKey.key, cardBody(), idem)).status, 201);
    const conflicts = [cardBody({ number: '5555555555554444' }), cardBody({ security_code: '999' })];
    for (const body of conflicts) {
      const res = await charge(testKey.key, body, idem);
      assertError(res, 409, 'idempotency_conflict');
      assertNoCardData(res, '5555555555554444', '999');
    }
    const pix = await app.request('POST', '/v1/pix', {
      headers: headers(testKey.key, idem),
      json: pixBody(),
    });
    assertError(pix, 409, 'idempotency_conflict');
    assert.deepEqual([calls.tokenize, calls.charge], [1, 1]);
  });

  test('6 concurrent POSTs with the same key: one charge, one tokenize and one charge call', async () => {
    const idem = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => charge(testKey.key, cardBody({ number: '6362970000457013' }), idem)),
    );
    const ids = new Set<string>();
    for (const a of answers) {
      // SPEC 3.1: a replay that finds the reservation still processing answers 202 processing.
      assert.ok([200, 201, 202].includes(a.status), a.text);
      if (a.status === 202) assert.equal(a.body.data.status, 'processing', a.text);
      else assert.equal(a.body.data.status, 'paid', a.text);
      ids.add(a.body.data.id);
    }
    assert.equal(answers.filter((a) => a.status === 201).length, 1);
    assert.equal(ids.size, 1);
    assert.deepEqual([calls.tokenize, calls.charge], [1, 1]);
    await app.settle();
    const [id] = [...ids];
    const list = await app.request('GET', '/v1/transactions?method=credit_card&limit=100', {
      headers: { 'x-api-key': testKey.key },
    });
    assert.equal(list.body.data.filter((t: { id: string }) => t.id === id).length, 1);
  });
});

describe('scopes, profiles, reads and actions (SPEC 4.3-4.8, 5.3-5.5)', () => {
  test('without credit_card:write: 403 insufficient_scope, nothing charged', async () => {
    const k = await seedTenantAndKey(app.gateway.ctx, { scopes: ['pix:write', 'transactions:read'] });
    assertError(await charge(k.key, cardBody()), 403, 'insufficient_scope');
    assert.equal(calls.tokenize, 0);
  });

  test('refund: refunded through the simulator, needs transactions:read and credit_card:write', async () => {
    const res = await charge(testKey.key, cardBody());
    const id = res.body.data.id;
    const scoped = async (scopes: ('transactions:read' | 'credit_card:write' | 'pix:write')[]) =>
      (
        await issueApiKey(
          commandDeps(app.gateway.ctx),
          {
            tenantId: testKey.tenantId,
            livemode: false,
            name: 'scoped',
            scopes,
            accessProfile: 'standard',
            createdBy: 'system:test',
          },
          { actor: 'system:test', request_id: 'req_test' },
        )
      ).key;
    assertError(
      await refund(await scoped(['transactions:read', 'pix:write']), id),
      403,
      'insufficient_scope',
    );
    assertError(await refund(await scoped(['credit_card:write']), id), 403, 'insufficient_scope');
    assert.equal(calls.refund, 0);
    const ok = await refund(await scoped(['transactions:read', 'credit_card:write']), id);
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.data.status, 'refunded');
    assert.deepEqual(ok.body.data.refund, { status: 'succeeded' });
    assert.equal(calls.refund, 1);
    assert.equal((await read(testKey.key, id)).body.data.status, 'refunded');
  });

  test('6 concurrent refunds, each with its own key: exactly one provider refund call', async () => {
    const res = await charge(testKey.key, cardBody({ number: '6062825624254001' }));
    const id = res.body.data.id;
    const answers = await Promise.all(Array.from({ length: 6 }, () => refund(testKey.key, id)));
    for (const a of answers) {
      assert.ok(a.status === 200 || a.status === 409, a.text);
      if (a.status === 200) assert.equal(a.body.data.status, 'refunded');
      else assert.equal(a.body.error.code, 'refund_in_progress', a.text);
    }
    assert.ok(answers.some((a) => a.status === 200));
    assert.equal(calls.refund, 1);
  });

  test('refresh of a card charge: 200 paid; simulate: 409 simulation_not_allowed (a card is never pending)', async () => {
    const res = await charge(testKey.key, cardBody());
    const id = res.body.data.id;
    const refreshed = await app.request('POST', `/v1/transactions/${id}/refresh`, {
      headers: { 'x-api-key': testKey.key },
    });
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.equal(refreshed.body.data.status, 'paid');
    assert.equal(calls.charge, 1, 'a refresh never charges');
    const sim = await app.request('POST', `/v1/transactions/${id}/simulate`, {
      headers: { 'x-api-key': testKey.key },
      json: { status: 'paid' },
    });
    assertError(sim, 409, 'simulation_not_allowed');
  });

  test('list method=credit_card; GET from another tenant or the other mode: 404', async () => {
    const res = await charge(testKey.key, cardBody());
    const id = res.body.data.id;
    const pix = await app.request('POST', '/v1/pix', { headers: headers(testKey.key), json: pixBody() });
    assert.equal(pix.status, 201, pix.text);
    await app.settle();
    const list = await app.request('GET', '/v1/transactions?method=credit_card&limit=100', {
      headers: { 'x-api-key': testKey.key },
    });
    assert.equal(list.status, 200);
    const ids = list.body.data.map((t: { id: string }) => t.id);
    assert.ok(ids.includes(id));
    assert.ok(!ids.includes(pix.body.data.id));
    assert.ok(list.body.data.every((t: { method: string }) => t.method === 'credit_card'));
    assertError(await read(outsider.key, id), 404, 'not_found');
    assertError(await read(live.key, id), 404, 'not_found');
  });

  test('a developer key (SPEC 5.4) creates card charges but cannot refresh: 403', async () => {
    const dev = await seedTenantAndKey(app.gateway.ctx, { accessProfile: 'developer' });
    const res = await charge(dev.key, cardBody());
    assert.equal(res.status, 201, res.text);
    const refreshed = await app.request('POST', `/v1/transactions/${res.body.data.id}/refresh`, {
      headers: { 'x-api-key': dev.key },
    });
    assert.equal(refreshed.status, 403, refreshed.text);
  });

  test('cost_center_id: an active center is kept; an inactive one is 422 invalid_cost_center', async () => {
    const cc = await app.request('POST', '/v1/cost-centers', {
      headers: headers(testKey.key),
      json: { name: `Cards ${randomUUID()}` },
    });
    assert.equal(cc.status, 201, cc.text);
    const ccId = cc.body.data.id;
    const ok = await charge(testKey.key, cardBody({}, { cost_center_id: ccId }));
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.data.cost_center_id, ccId);
    const off = await app.request('PATCH', `/v1/cost-centers/${ccId}`, {
      headers: { 'x-api-key': testKey.key },
      json: { active: false },
    });
    assert.equal(off.status, 200, off.text);
    assertError(
      await charge(testKey.key, cardBody({}, { cost_center_id: ccId })),
      422,
      'invalid_cost_center',
    );
  });

  test('callback_url: a real receiver gets transaction.created and transaction.updated of the card charge (SPEC 6)', async () => {
    const path = `/cb-${randomUUID()}`;
    const res = await charge(
      testKey.key,
      cardBody({}, { callback_url: `http://127.0.0.1:${receiver.port}${path}` }),
    );
    assert.equal(res.status, 201, res.text);
    const worker = new WebhookDeliveryWorker(app.gateway.ctx, { intervalMs: 1000, concurrency: 4 });
    await app.settle();
    while ((await worker.runOnce()) > 0) {}
    const got = receiver.bodies
      .filter((r) => r.path === path)
      .map(
        (r) => JSON.parse(r.body) as { type: string; data: { id: string; method: string; status: string } },
      );
    assert.deepEqual(
      got.map((m) => m.type),
      ['transaction.created', 'transaction.updated'],
    );
    for (const m of got) {
      assert.equal(m.data.id, res.body.data.id);
      assert.equal(m.data.method, 'credit_card');
    }
    assert.equal(got[1]?.data.status, 'paid');
  });
});
