import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import {
  type CycleIdentity,
  cycleStream,
  subscriptionCycle,
} from '../../src/aggregates/subscription-cycle.ts';
import { handleCommand } from '../../src/commands/command-handler.ts';
import { newId } from '../../src/ids.ts';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  assertError,
  bearer,
  logIn,
  roleTokens,
  startAdminApp,
} from '../support/admin.ts';
import { cardBody } from '../support/cards.ts';
import { boletoBody } from '../support/charges.ts';
import { createTestDatabase } from '../support/databases.ts';
import { commandDeps, type SeededKey, seedChildTenant, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';
import { extraKey } from '../support/keys.ts';
import { dueIn, subscriptionBody, subscriptionCard } from '../support/subscriptions.ts';

/**
 * Subscriptions over HTTP (issue 26 part B; SPEC 2.4, 2.5, 3.3, 4 common rules, 4.10, 5.3, 5.5, 5.7, 7, 8):
 * creation with every body rule and replay, the reads with their tree and mode, the cycles' view, PATCH
 * (pause, resume, cancel, cost center) and the panel delete. The first charge and the scheduler are another
 * part's (src/commands/subscriptions/emit, schedule); cycles here are given as the scheduler appends them.
 */

const metadata = { actor: 'system:test', request_id: 'req_test' };
let app: TestApp;
let parent: SeededKey;
let child: SeededKey;
let outsider: SeededKey;
let parentLive: string;
let pixOnly: string;
let boletoOnly: string;
let cardOnly: string;
let readOnly: string;
/** The instant the gateway's clock reads; null: the real time. */
let frozen: Date | null = null;

function post(key: string, json: unknown, idempotencyKey: string | null = randomUUID()) {
  return app.request('POST', '/v1/subscriptions', {
    headers: { 'x-api-key': key, ...(idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey }) },
    json,
  });
}
const get = (key: string, path: string) => app.request('GET', path, { headers: { 'x-api-key': key } });
const patch = (key: string, id: string, json: unknown) =>
  app.request('PATCH', `/v1/subscriptions/${id}`, { headers: { 'x-api-key': key }, json });

/** The next 15th after today (America/Sao_Paulo), at least a day ahead. */
function nextFifteenth(): string {
  for (let d = 1; ; d++) if (dueIn(d).endsWith('-15')) return dueIn(d);
}

// biome-ignore lint/suspicious/noExplicitAny: response JSON, already validated against /openapi.json
async function created(key: string, over: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await post(key, subscriptionBody(over));
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

const issueKey = (tenantId: string, opts: Parameters<typeof extraKey>[2] = {}) =>
  extraKey(app.gateway.ctx, tenantId, opts);

async function costCenter(key: string, name: string): Promise<string> {
  const res = await app.request('POST', '/v1/cost-centers', {
    headers: { 'x-api-key': key },
    json: { name },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id;
}

async function listIds(key: string, query = ''): Promise<string[]> {
  await app.settle();
  const res = await get(key, `/v1/subscriptions${query}`);
  assert.equal(res.status, 200, res.text);
  return res.body.data.map((s: { id: string }) => s.id);
}

/** A cycle as the scheduler leaves it (SPEC 2.5): reserved, then issued with its charge or link. */
async function givenIssuedCycle(
  // biome-ignore lint/suspicious/noExplicitAny: response JSON
  sub: Record<string, any>,
  cycle: number,
  dueDate: string,
  issued: { transactionId: string | null; checkoutId: string | null },
) {
  const identity: CycleIdentity = {
    cycle_id: newId('scy'),
    subscription_id: sub.id,
    tenant_id: sub.tenant_id,
    livemode: sub.livemode,
    method: sub.method,
    cycle,
    due_date: dueDate,
  };
  const deps = commandDeps(app.gateway.ctx);
  const stream = cycleStream(sub.id, dueDate);
  await handleCommand(deps, subscriptionCycle, stream, { kind: 'reserve', identity }, { metadata });
  await handleCommand(deps, subscriptionCycle, stream, { kind: 'issue', ...issued }, { metadata });
  return identity.cycle_id;
}

beforeAll(async () => {
  app = await startAdminApp({
    ENABLE_SIMULATOR: 'true',
    CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });
  app.gateway.ctx.now = () => frozen ?? new Date();
  parent = await seedTenantAndKey(app.gateway.ctx, { tenantName: 'Academia Forma' });
  child = await seedChildTenant(app.gateway.ctx, parent.tenantId);
  outsider = await seedTenantAndKey(app.gateway.ctx);
  parentLive = await issueKey(parent.tenantId, { livemode: true });
  pixOnly = await issueKey(parent.tenantId, { scopes: ['pix:write', 'transactions:read'] });
  boletoOnly = await issueKey(parent.tenantId, { scopes: ['boleto:write', 'transactions:read'] });
  cardOnly = await issueKey(parent.tenantId, { scopes: ['credit_card:write', 'transactions:read'] });
  readOnly = await issueKey(parent.tenantId, { scopes: ['transactions:read'] });
});

afterAll(async () => {
  await app.close();
});

describe('POST /v1/subscriptions (SPEC 4 common rules, 4.10)', () => {
  test('201: an active subscription of the key tenant and mode, with its calendar and defaults', async () => {
    // A 15th, so the next due date is plainly the 15th of the next month (SPEC 4.10: the due day repeats).
    const first = nextFifteenth();
    const [y, m] = first.split('-').map(Number) as [number, number];
    const second = m === 12 ? `${y + 1}-01-15` : `${y}-${String(m + 1).padStart(2, '0')}-15`;
    const res = await post(
      parent.key,
      subscriptionBody({ first_due_date: first, callback_url: 'https://academia.example.com/hooks' }),
    );
    assert.equal(res.status, 201, res.text);
    const s = res.body.data;
    assert.match(s.id, /^sub_/);
    assert.equal(s.tenant_id, parent.tenantId);
    assert.equal(s.livemode, false);
    assert.equal(s.status, 'active');
    assert.equal(s.name, 'Plano mensal');
    assert.equal(s.customer_name, 'Maria Silva');
    assert.equal(s.amount, 4990);
    assert.equal(s.method, 'boleto');
    assert.equal(s.description, 'Mensalidade');
    assert.equal(s.first_due_date, first);
    // SPEC 3.3: the first charge is issued at creation (cycle 1), so the calendar is already at cycle 2.
    assert.equal(s.cycle, 1);
    assert.equal(s.next_due_date, second);
    assert.equal(s.interval_months, 1);
    assert.equal(s.advance_days, 0);
    assert.equal(s.authorization_id, null);
    assert.equal(s.callback_url, 'https://academia.example.com/hooks');
    assert.equal(s.last_error, null);
    assert.equal(s.next_attempt_at, null);
    assert.equal(s.test_clock_id, null);
    assert.equal(s.cost_center_id, null);
    assert.equal(s.cost_center_name, null);
    // SPEC 2.4 names customer_name only: the payer's document and contact never come back.
    assert.equal(s.customer, undefined);
    assert.equal(JSON.stringify(s).includes('12345678901'), false);
    const got = await get(parent.key, `/v1/subscriptions/${s.id}`);
    assert.deepEqual(got.body.data, s);
  });

  test('description defaults to the name; advance_days as sent', async () => {
    const { description: _d, ...body } = subscriptionBody({ advance_days: 30, method: 'pix' });
    const res = await post(parent.key, body);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.description, 'Plano mensal');
    assert.equal(res.body.data.advance_days, 30);
  });

  test('replay: 200 with Idempotency-Replayed and the same subscription; another body 409 idempotency_conflict', async () => {
    const key = randomUUID();
    const first = await post(parent.key, subscriptionBody(), key);
    assert.equal(first.status, 201, first.text);
    const again = await post(parent.key, subscriptionBody(), key);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(again.body.data, first.body.data);
    assertError(await post(parent.key, subscriptionBody({ amount: 100 }), key), 409, 'idempotency_conflict');
    // The cost center is part of the body compared (SPEC 4.10).
    const center = await costCenter(parent.key, `Replay ${randomUUID()}`);
    assertError(
      await post(parent.key, subscriptionBody({ cost_center_id: center }), key),
      409,
      'idempotency_conflict',
    );
    // A key used by a charge is another request (another route).
    const charged = await app.request('POST', '/v1/boleto', {
      headers: { 'x-api-key': parent.key, 'idempotency-key': key },
      json: boletoBody(),
    });
    assertError(charged, 409, 'idempotency_conflict');
    // The scope is tenant + key: another tenant's same key is another subscription.
    const elsewhere = await post(outsider.key, subscriptionBody(), key);
    assert.equal(elsewhere.status, 201, elsewhere.text);
    assert.notEqual(elsewhere.body.data.id, first.body.data.id);
    await app.settle();
    assert.equal((await listIds(parent.key)).filter((id) => id === first.body.data.id).length, 1);
  });

  test('a replay is answered as stored even when its first due date is now in the past', async () => {
    const key = randomUUID();
    const body = subscriptionBody({ first_due_date: dueIn(0) });
    const first = await post(parent.key, body, key);
    assert.equal(first.status, 201, first.text);
    frozen = new Date(Date.now() + 3 * 86_400_000);
    try {
      const again = await post(parent.key, body, key);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.data.id, first.body.data.id);
    } finally {
      frozen = null;
    }
  });

  test('400 idempotency_key_required: missing or outside the pattern', async () => {
    assertError(await post(parent.key, subscriptionBody(), null), 400, 'idempotency_key_required');
    assertError(await post(parent.key, subscriptionBody(), 'not valid!'), 400, 'idempotency_key_required');
    assertError(await post(parent.key, subscriptionBody(), 'x'.repeat(129)), 400, 'idempotency_key_required');
  });

  test('400 invalid_json: unknown fields (mode, provider_id), null body, duplicate field', async () => {
    assertError(await post(parent.key, { ...subscriptionBody(), mode: 'live' }), 400, 'invalid_json');
    assertError(await post(parent.key, { ...subscriptionBody(), provider_id: 'prv_x' }), 400, 'invalid_json');
    const nul = await app.request('POST', '/v1/subscriptions', {
      headers: { 'x-api-key': parent.key, 'idempotency-key': randomUUID() },
      raw: 'null',
    });
    assertError(nul, 400, 'invalid_json');
    const dup = await app.request('POST', '/v1/subscriptions', {
      headers: { 'x-api-key': parent.key, 'idempotency-key': randomUUID() },
      raw: `${JSON.stringify(subscriptionBody()).slice(0, -1)},"amount":5}`,
    });
    assertError(dup, 400, 'invalid_json');
  });

  test('401 unauthorized without a key or with a wrong one', async () => {
    const res = await app.request('POST', '/v1/subscriptions', {
      headers: { 'idempotency-key': randomUUID() },
      json: subscriptionBody(),
    });
    assertError(res, 401, 'unauthorized');
    assertError(await post('sk_test_nope', subscriptionBody()), 401, 'unauthorized');
  });

  test('403 insufficient_scope: the write scope of the method (SPEC 4.10, 5.3)', async () => {
    const card = { method: 'credit_card', credit_card: subscriptionCard() };
    assertError(await post(pixOnly, subscriptionBody()), 403, 'insufficient_scope');
    assertError(await post(pixOnly, subscriptionBody(card)), 403, 'insufficient_scope');
    assertError(await post(boletoOnly, subscriptionBody({ method: 'pix' })), 403, 'insufficient_scope');
    assertError(await post(cardOnly, subscriptionBody()), 403, 'insufficient_scope');
    assertError(await post(readOnly, subscriptionBody()), 403, 'insufficient_scope');
    // pix_automatic needs pix:write too: without it 403, with it the body's own refusal.
    const automatic = subscriptionBody({
      method: 'pix_automatic',
      authorization_id: 'pxa_1',
      advance_days: 2,
    });
    assertError(await post(boletoOnly, automatic), 403, 'insufficient_scope');
    assert.equal((await post(pixOnly, subscriptionBody({ method: 'pix' }))).status, 201);
    assert.equal((await post(boletoOnly, subscriptionBody())).status, 201);
    assert.equal((await post(cardOnly, subscriptionBody(card))).status, 201);
  });

  test('413 request_too_large', async () => {
    const res = await post(parent.key, subscriptionBody({ description: 'x'.repeat(1024 * 1024 + 10) }));
    assertError(res, 413, 'request_too_large');
  });

  test('422 tenant_from_api_key', async () => {
    assertError(
      await post(parent.key, subscriptionBody({ tenant_id: parent.tenantId })),
      422,
      'tenant_from_api_key',
    );
    assertError(
      await post(child.key, subscriptionBody({ tenant_id: parent.tenantId })),
      422,
      'tenant_from_api_key',
    );
  });

  test('first_due_date in Brasilia time: today accepted at 23:30 there, when UTC is already tomorrow', async () => {
    // 2026-12-15 02:30 UTC is 2026-12-14 23:30 in America/Sao_Paulo (UTC-3).
    frozen = new Date('2026-12-15T02:30:00.000Z');
    try {
      const ok = await post(parent.key, subscriptionBody({ first_due_date: '2026-12-14' }));
      assert.equal(ok.status, 201, ok.text);
      const late = await post(parent.key, subscriptionBody({ first_due_date: '2026-12-13' }));
      assertError(late, 422, 'validation_error');
      assert.equal(late.body.error.param, 'first_due_date');
      // boleto and pix: at most 365 days ahead of the Brasilia day.
      assert.equal((await post(parent.key, subscriptionBody({ first_due_date: '2027-12-14' }))).status, 201);
      for (const method of ['boleto', 'pix']) {
        const far = await post(parent.key, subscriptionBody({ method, first_due_date: '2027-12-15' }));
        assertError(far, 422, 'validation_error');
        assert.equal(far.body.error.param, 'first_due_date');
      }
    } finally {
      frozen = null;
    }
  });

  test('422 validation_error naming the field; nothing is stored', async () => {
    const quiet = await seedTenantAndKey(app.gateway.ctx);
    const card = (over: Record<string, unknown> = {}) => ({
      method: 'credit_card',
      credit_card: subscriptionCard(over),
    });
    const customer = subscriptionBody().customer as Record<string, unknown>;
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'n'.repeat(101) }, 'name'],
      [{ name: '' }, 'name'],
      [{ description: 'd'.repeat(201) }, 'description'],
      [{ amount: 0 }, 'amount'],
      [{ amount: 100_000_001 }, 'amount'],
      [{ method: 'ted' }, 'method'],
      [{ first_due_date: '2026-02-30' }, 'first_due_date'],
      [{ first_due_date: dueIn(-1) }, 'first_due_date'],
      [{ first_due_date: dueIn(366) }, 'first_due_date'],
      [{ interval_months: 0 }, 'interval_months'],
      [{ interval_months: 121 }, 'interval_months'],
      [{ advance_days: 31 }, 'advance_days'],
      [{ method: 'pix', advance_days: -1 }, 'advance_days'],
      [{ authorization_id: 'pxa_1' }, 'authorization_id'],
      [{ credit_card: subscriptionCard() }, 'credit_card'],
      [{ customer: { ...customer, email: undefined } }, 'customer.email'],
      [{ customer: { ...customer, phone: undefined } }, 'customer.phone'],
      [{ customer: { ...customer, address: undefined } }, 'customer.address'],
      [{ customer: { ...customer, document: undefined } }, 'customer.document'],
      [{ customer: { ...customer, name: undefined } }, 'customer.name'],
      [{ callback_url: 'https://127.0.0.1/hook' }, 'callback_url'],
      [{ callback_url: 'http://academia.example.com/hook' }, 'callback_url'],
      [{ test_clock_id: '' }, 'test_clock_id'],
      // pix_automatic: no authorization exists with this id (SPEC 4.10: 422 on authorization_id).
      [
        { method: 'pix_automatic', authorization_id: 'pxa_1', advance_days: 2, first_due_date: dueIn(5) },
        'authorization_id',
      ],
      [{ method: 'pix_automatic', authorization_id: 'pxa_1', first_due_date: dueIn(1) }, 'first_due_date'],
      [{ method: 'pix_automatic', authorization_id: 'pxa_1', interval_months: 2 }, 'interval_months'],
      [{ method: 'pix_automatic', advance_days: 2 }, 'authorization_id'],
      [{ method: 'pix_automatic', authorization_id: 'pxa_1', advance_days: 11 }, 'advance_days'],
      [{ method: 'credit_card' }, 'credit_card'],
      [{ ...card(), advance_days: 1 }, 'advance_days'],
      [card({ installments: 2 }), 'credit_card.installments'],
      [card({ authorized: false }), 'credit_card.authorized'],
      [card({ number: '4111111111111112' }), 'credit_card.number'],
      [card({ number: '41111111111' }), 'credit_card.number'],
      [card({ security_code: '12' }), 'credit_card.security_code'],
      [card({ expiration: '13/2030' }), 'credit_card.expiration'],
      [card({ expiration: '01/2020' }), 'credit_card.expiration'],
      [card({ token: 'card_abc' }), 'credit_card.holder'],
      [
        { method: 'credit_card', credit_card: { token: 'card_missing', installments: 1, authorized: true } },
        'credit_card.token',
      ],
    ];
    for (const [over, param] of cases) {
      const res = await post(quiet.key, subscriptionBody(over));
      assertError(res, 422, 'validation_error');
      assert.equal(res.body.error.param, param, `${JSON.stringify(over)}: ${res.text}`);
    }
    // A live key never attaches a test clock (issue 26 item 6).
    const live = await issueKey(quiet.tenantId, { livemode: true });
    const clocked = await post(live, subscriptionBody({ test_clock_id: 'clk_1' }));
    assertError(clocked, 422, 'validation_error');
    assert.equal(clocked.body.error.param, 'test_clock_id');
    // Bad input never changes stored state: nothing listed, in either mode.
    assert.deepEqual(await listIds(quiet.key), []);
    assert.deepEqual(await listIds(live), []);
  });

  test('a test key attaches its own test clock, whose time judges the first due date (issue 26 item 6)', async () => {
    const clock = async (key: string) => {
      const res = await app.request('POST', '/v1/test_clocks', {
        headers: { 'x-api-key': key, 'idempotency-key': randomUUID() },
        json: { frozen_time: '2028-03-01T15:00:00.000Z' },
      });
      assert.equal(res.status, 201, res.text);
      return res.body.data.id as string;
    };
    const own = await clock(parent.key);
    // 2028-03-10 is more than 365 days after the real today, 2028-02-28 after it: the clock's day decides.
    const s = await created(parent.key, { test_clock_id: own, first_due_date: '2028-03-10' });
    assert.equal(s.test_clock_id, own);
    const before = await post(
      parent.key,
      subscriptionBody({ test_clock_id: own, first_due_date: '2028-02-28' }),
    );
    assertError(before, 422, 'validation_error');
    assert.equal(before.body.error.param, 'first_due_date');
    // Unknown, another tenant's (a child's too): 422 on test_clock_id.
    for (const id of ['clock_missing', await clock(outsider.key), await clock(child.key)]) {
      const res = await post(
        parent.key,
        subscriptionBody({ test_clock_id: id, first_due_date: '2028-03-10' }),
      );
      assertError(res, 422, 'validation_error');
      assert.equal(res.body.error.param, 'test_clock_id');
    }
  });

  test("422 invalid_cost_center: missing, another tenant's, inactive; a center of the tenant is named", async () => {
    assertError(
      await post(parent.key, subscriptionBody({ cost_center_id: 'cc_missing' })),
      422,
      'invalid_cost_center',
    );
    const theirs = await costCenter(outsider.key, 'Outra');
    assertError(
      await post(parent.key, subscriptionBody({ cost_center_id: theirs })),
      422,
      'invalid_cost_center',
    );
    const ofChild = await costCenter(child.key, 'Filial');
    assertError(
      await post(parent.key, subscriptionBody({ cost_center_id: ofChild })),
      422,
      'invalid_cost_center',
    );
    const inactive = await costCenter(parent.key, `Inativo ${randomUUID()}`);
    const off = await app.request('PATCH', `/v1/cost-centers/${inactive}`, {
      headers: { 'x-api-key': parent.key },
      json: { active: false },
    });
    assert.equal(off.status, 200, off.text);
    assertError(
      await post(parent.key, subscriptionBody({ cost_center_id: inactive })),
      422,
      'invalid_cost_center',
    );
    const center = await costCenter(parent.key, 'Unidade Centro');
    const s = await created(parent.key, { cost_center_id: center });
    assert.equal(s.cost_center_id, center);
    assert.equal(s.cost_center_name, 'Unidade Centro');
  });

  test('card by data or by a kept card of the tenant and mode; never the number in the answer', async () => {
    const byData = await post(
      cardOnly,
      subscriptionBody({ method: 'credit_card', credit_card: subscriptionCard() }),
    );
    assert.equal(byData.status, 201, byData.text);
    assert.equal(byData.body.data.method, 'credit_card');
    assert.equal(byData.body.data.advance_days, 0);
    assert.equal(byData.text.includes('4111111111111111'), false);
    // The same key and body (the same card) replays; another card under the key conflicts.
    const key = randomUUID();
    const body = subscriptionBody({ method: 'credit_card', credit_card: subscriptionCard() });
    assert.equal((await post(parent.key, body, key)).status, 201);
    assert.equal((await post(parent.key, body, key)).status, 200);
    const other = subscriptionBody({
      method: 'credit_card',
      credit_card: subscriptionCard({ number: '5555555555554444' }),
    });
    assertError(await post(parent.key, other, key), 409, 'idempotency_conflict');
    // A card kept by an approved charge (SPEC 4.9) is named by its id.
    const charge = await app.request('POST', '/v1/credit-card', {
      headers: { 'x-api-key': parent.key, 'idempotency-key': randomUUID() },
      json: cardBody(),
    });
    assert.equal(charge.status, 201, charge.text);
    const cardId = charge.body.data.credit_card.card_id;
    assert.match(cardId, /^card_/);
    const byToken = {
      method: 'credit_card',
      credit_card: { token: cardId, installments: 1, authorized: true },
    };
    assert.equal((await post(parent.key, subscriptionBody(byToken))).status, 201);
    // Another tenant's (a child's too) or the other mode's key does not see it.
    for (const key of [outsider.key, child.key, parentLive]) {
      const res = await post(key, subscriptionBody(byToken));
      assertError(res, 422, 'validation_error');
      assert.equal(res.body.error.param, 'credit_card.token');
    }
  });

  test('without routing: boleto and pix are created (the first charge retries), a card is refused', async () => {
    const db = await createTestDatabase();
    const off = await startTestApp(
      { ENABLE_SIMULATOR: 'false', CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
      undefined,
      db,
    );
    try {
      const demo = await seedTenantAndKey(off.gateway.ctx);
      const send = (json: unknown) =>
        off.request('POST', '/v1/subscriptions', {
          headers: { 'x-api-key': demo.key, 'idempotency-key': randomUUID() },
          json,
        });
      for (const method of ['boleto', 'pix']) {
        const res = await send(subscriptionBody({ method }));
        assert.equal(res.status, 201, res.text);
      }
      const card = await send(subscriptionBody({ method: 'credit_card', credit_card: subscriptionCard() }));
      assertError(card, 422, 'provider_not_configured');
      await off.settle();
      const list = await off.request('GET', '/v1/subscriptions', { headers: { 'x-api-key': demo.key } });
      assert.deepEqual(list.body.data.map((s: { method: string }) => s.method).sort(), ['boleto', 'pix']);
    } finally {
      await off.close();
      await db.drop();
    }
  });

  test('a card needs the key that seals card tokens (CREDENTIALS_ENCRYPTION_KEY)', async () => {
    const db = await createTestDatabase();
    const bare = await startTestApp({ ENABLE_SIMULATOR: 'true' }, undefined, db);
    try {
      const demo = await seedTenantAndKey(bare.gateway.ctx);
      const res = await bare.request('POST', '/v1/subscriptions', {
        headers: { 'x-api-key': demo.key, 'idempotency-key': randomUUID() },
        json: subscriptionBody({ method: 'credit_card', credit_card: subscriptionCard() }),
      });
      assertError(res, 422, 'provider_not_configured');
    } finally {
      await bare.close();
      await db.drop();
    }
  });
});

describe('who may use subscriptions (SPEC 5.4, 5.5)', () => {
  test('developer keys create, read and change subscriptions', async () => {
    const developer = await issueKey(parent.tenantId, { accessProfile: 'developer' });
    const s = await created(developer);
    assert.equal((await get(developer, `/v1/subscriptions/${s.id}`)).status, 200);
    assert.equal((await patch(developer, s.id, { status: 'paused' })).status, 200);
  });

  test('403 tenant_suspended on every endpoint of a suspended tenant', async () => {
    const other = await seedTenantAndKey(app.gateway.ctx);
    const s = await created(other.key);
    const admin = bearer(await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD));
    const res = await app.request('POST', `/admin/tenants/${other.tenantId}/suspend`, { headers: admin });
    assert.equal(res.status, 200, res.text);
    assertError(await post(other.key, subscriptionBody()), 403, 'tenant_suspended');
    assertError(await get(other.key, '/v1/subscriptions'), 403, 'tenant_suspended');
    assertError(await get(other.key, `/v1/subscriptions/${s.id}`), 403, 'tenant_suspended');
    assertError(await get(other.key, `/v1/subscriptions/${s.id}/cycles`), 403, 'tenant_suspended');
    assertError(await patch(other.key, s.id, { status: 'paused' }), 403, 'tenant_suspended');
  });
});

describe('GET /v1/subscriptions and /v1/subscriptions/{id} (SPEC 4.10 with 4.3, 4.4, 5.2)', () => {
  test('a parent reads its own and its child subscriptions; the child not the parent; another tree 404', async () => {
    const own = await created(parent.key);
    const ofChild = await created(child.key);
    assert.equal((await get(parent.key, `/v1/subscriptions/${own.id}`)).body.data.id, own.id);
    const read = await get(parent.key, `/v1/subscriptions/${ofChild.id}`);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.data.tenant_id, child.tenantId);
    assertError(await get(child.key, `/v1/subscriptions/${own.id}`), 404, 'not_found');
    assertError(await get(outsider.key, `/v1/subscriptions/${own.id}`), 404, 'not_found');
    // A sibling (another child of the same parent) does not read it either.
    const sibling = await seedChildTenant(app.gateway.ctx, parent.tenantId);
    assertError(await get(sibling.key, `/v1/subscriptions/${ofChild.id}`), 404, 'not_found');
    assertError(await patch(sibling.key, ofChild.id, { status: 'paused' }), 404, 'not_found');
    assertError(await get(parent.key, '/v1/subscriptions/sub_missing'), 404, 'not_found');
    assertError(await get(parent.key, '/v1/subscriptions/txn_whatever'), 404, 'not_found');
  });

  test('the other mode: 404 and not listed (SPEC 4.10, 5.2)', async () => {
    const testMode = await created(parent.key);
    assertError(await get(parentLive, `/v1/subscriptions/${testMode.id}`), 404, 'not_found');
    assertError(await get(parentLive, `/v1/subscriptions/${testMode.id}/cycles`), 404, 'not_found');
    const live = await created(parentLive);
    assert.equal(live.livemode, true);
    assertError(await get(parent.key, `/v1/subscriptions/${live.id}`), 404, 'not_found');
    const liveIds = await listIds(parentLive);
    assert.ok(liveIds.includes(live.id));
    assert.ok(!liveIds.includes(testMode.id));
    assert.ok(!(await listIds(parent.key)).includes(live.id));
  });

  test('scope transactions:read: 403 without it; 401 without a key', async () => {
    const noRead = await issueKey(parent.tenantId, { scopes: ['boleto:write'] });
    const s = await created(parent.key);
    assertError(await get(noRead, '/v1/subscriptions'), 403, 'insufficient_scope');
    assertError(await get(noRead, `/v1/subscriptions/${s.id}`), 403, 'insufficient_scope');
    assertError(await get(noRead, `/v1/subscriptions/${s.id}/cycles`), 403, 'insufficient_scope');
    assertError(await app.request('GET', '/v1/subscriptions'), 401, 'unauthorized');
  });

  test('filters: status, tenant_id, include_descendants; newest first; limit and offset', async () => {
    const tree = await seedTenantAndKey(app.gateway.ctx);
    const leaf = await seedChildTenant(app.gateway.ctx, tree.tenantId);
    const a = await created(tree.key);
    const b = await created(tree.key);
    const c = await created(leaf.key);
    assert.equal((await patch(tree.key, a.id, { status: 'paused' })).status, 200);
    assert.deepEqual(await listIds(tree.key), [b.id, a.id]);
    const page = await get(tree.key, '/v1/subscriptions?limit=1&offset=1');
    assert.deepEqual(page.body.meta, { limit: 1, offset: 1, count: 1 });
    assert.equal(page.body.data[0].id, a.id);
    assert.deepEqual(await listIds(tree.key, '?include_descendants=true'), [c.id, b.id, a.id]);
    assert.deepEqual(await listIds(tree.key, `?tenant_id=${leaf.tenantId}`), [c.id]);
    assert.deepEqual(await listIds(tree.key, '?status=paused'), [a.id]);
    assert.deepEqual(await listIds(tree.key, '?status=active&include_descendants=true'), [c.id, b.id]);
    assert.deepEqual(await listIds(tree.key, '?status=cancelled'), []);
    assertError(await get(leaf.key, `/v1/subscriptions?tenant_id=${tree.tenantId}`), 404, 'not_found');
    assertError(await get(tree.key, `/v1/subscriptions?tenant_id=${outsider.tenantId}`), 404, 'not_found');
    assertError(await get(tree.key, '/v1/subscriptions?status=deleted'), 422, 'validation_error');
    assertError(await get(tree.key, '/v1/subscriptions?limit=0'), 422, 'validation_error');
    assertError(await get(tree.key, '/v1/subscriptions?offset=-1'), 422, 'validation_error');
    const clamped = await get(tree.key, '/v1/subscriptions?limit=500');
    assert.equal(clamped.body.meta.limit, 100);
  });
});

describe('GET /v1/subscriptions/{id}/cycles (SPEC 2.5, 4.10)', () => {
  test('a new subscription already has its first cycle: created, with its boleto (SPEC 3.3, 4.10)', async () => {
    const s = await created(parent.key);
    await app.settle();
    const res = await get(parent.key, `/v1/subscriptions/${s.id}/cycles`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.meta, { limit: 50, offset: 0, count: 1 });
    const [cycle] = res.body.data;
    assert.equal(cycle.cycle, 1);
    assert.equal(cycle.due_date, s.first_due_date);
    assert.equal(cycle.status, 'created');
    assert.match(cycle.transaction_id, /^txn_/);
    assert.equal(cycle.transaction_status, 'pending');
  });

  test('boleto cycles newest first, with their charge status and document link; paging', async () => {
    const s = await created(parent.key, { first_due_date: dueIn(5) });
    await app.settle();
    // Cycle 1 was issued at creation; cycle 2 (the scheduler's, a month later) is given here with a boleto.
    const [issued] = (await get(parent.key, `/v1/subscriptions/${s.id}/cycles`)).body.data;
    const firstCharge = (await get(parent.key, `/v1/transactions/${issued.transaction_id}`)).body.data;
    const res2 = await app.request('POST', '/v1/boleto', {
      headers: { 'x-api-key': parent.key, 'idempotency-key': randomUUID() },
      json: boletoBody({ due_date: dueIn(35) }),
    });
    assert.equal(res2.status, 201, res2.text);
    const charges = [firstCharge, res2.body.data];
    const first = issued.id;
    const second = await givenIssuedCycle(s, 2, dueIn(35), {
      transactionId: charges[1].id,
      checkoutId: null,
    });
    await app.settle();
    const res = await get(parent.key, `/v1/subscriptions/${s.id}/cycles`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.data.map((c: { id: string }) => c.id),
      [second, first],
    );
    const newest = res.body.data[0];
    assert.equal(newest.subscription_id, s.id);
    assert.equal(newest.cycle, 2);
    assert.equal(newest.due_date, dueIn(35));
    assert.equal(newest.status, 'created');
    assert.equal(newest.transaction_id, charges[1].id);
    assert.equal(newest.checkout_id, null);
    assert.equal(newest.transaction_status, 'pending');
    assert.equal(newest.payment_url, charges[1].document_url);
    assert.equal(newest.error_code, null);
    // transaction_status is the charge's as it is now.
    const paid = await app.request('POST', `/v1/transactions/${charges[0].id}/simulate`, {
      headers: { 'x-api-key': parent.key },
      json: { status: 'paid' },
    });
    assert.equal(paid.status, 200, paid.text);
    await app.settle();
    const page = await get(parent.key, `/v1/subscriptions/${s.id}/cycles?limit=1&offset=1`);
    assert.deepEqual(page.body.meta, { limit: 1, offset: 1, count: 1 });
    assert.equal(page.body.data[0].id, first);
    assert.equal(page.body.data[0].transaction_status, 'paid');
    // A parent reads its child's cycles; another tree, 404.
    assertError(await get(outsider.key, `/v1/subscriptions/${s.id}/cycles`), 404, 'not_found');
    assertError(await get(child.key, `/v1/subscriptions/${s.id}/cycles`), 404, 'not_found');
    assertError(await get(parent.key, '/v1/subscriptions/sub_missing/cycles'), 404, 'not_found');
  });

  test('a Pix cycle shows its checkout link and no transaction until the payer chooses to pay', async () => {
    const s = await created(parent.key, { method: 'pix' });
    await app.settle();
    // Cycle 1 is issued at creation as a checkout link (SPEC 4.10).
    const [issued] = (await get(parent.key, `/v1/subscriptions/${s.id}/cycles`)).body.data;
    const link = await get(parent.key, `/v1/checkouts/${issued.checkout_id}`);
    assert.equal(link.status, 200, link.text);
    const res = await get(parent.key, `/v1/subscriptions/${s.id}/cycles`);
    const [cycle] = res.body.data;
    assert.equal(cycle.checkout_id, link.body.data.id);
    assert.equal(cycle.payment_url, link.body.data.url);
    assert.equal(cycle.transaction_id, null);
    assert.equal(cycle.transaction_status, null);
    // The payer chooses Pix on the link's page (its form post): the cycle now shows that charge.
    const path = new URL(link.body.data.url).pathname;
    const html = (await app.request('GET', path)).text;
    const nonce = /name="method" value="pix">\s*<input type="hidden" name="nonce" value="([^"]+)"/.exec(
      html,
    )?.[1];
    const payer = {
      name: 'Maria Silva',
      document: '12345678901',
      email: 'maria@example.com',
      phone: '11987654321',
    };
    const address = {
      zip_code: '01310100',
      street: 'Avenida Paulista',
      number: '1000',
      district: 'Bela Vista',
    };
    const chosen = await fetch(`${app.baseUrl}${path}/pay`, {
      method: 'POST',
      body: new URLSearchParams({
        method: 'pix',
        nonce: nonce ?? '',
        ...payer,
        ...address,
        city: 'Sao Paulo',
        state: 'SP',
      }),
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: app.baseUrl },
    });
    assert.equal(chosen.status, 303);
    const [charge] = (await get(parent.key, `/v1/checkouts/${link.body.data.id}`)).body.data.transaction_ids;
    assert.match(charge, /^txn_/);
    await app.settle();
    const [paying] = (await get(parent.key, `/v1/subscriptions/${s.id}/cycles`)).body.data;
    assert.equal(paying.transaction_id, charge);
    assert.equal(paying.transaction_status, 'pending');
    assert.equal(paying.payment_url, link.body.data.url);
  });
});

describe('PATCH /v1/subscriptions/{id} (SPEC 3.3, 4.10)', () => {
  test('pause, pause again, resume, cancel; then 409 subscription_cancelled and cancel again is 200', async () => {
    const s = await created(parent.key);
    const paused = await patch(parent.key, s.id, { status: 'paused' });
    assert.equal(paused.status, 200, paused.text);
    assert.equal(paused.body.data.status, 'paused');
    assert.equal((await patch(parent.key, s.id, { status: 'paused' })).body.data.status, 'paused');
    const resumed = await patch(parent.key, s.id, { status: 'active' });
    assert.equal(resumed.body.data.status, 'active');
    assert.equal((await patch(parent.key, s.id, { status: 'active' })).body.data.status, 'active');
    const cancelled = await patch(parent.key, s.id, { status: 'cancelled' });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.data.status, 'cancelled');
    assertError(await patch(parent.key, s.id, { status: 'active' }), 409, 'subscription_cancelled');
    assertError(await patch(parent.key, s.id, { status: 'paused' }), 409, 'subscription_cancelled');
    assert.equal((await patch(parent.key, s.id, { status: 'cancelled' })).status, 200);
    assert.equal((await get(parent.key, `/v1/subscriptions/${s.id}`)).body.data.status, 'cancelled');
    assert.deepEqual(await listIds(parent.key, '?status=cancelled').then((ids) => ids.includes(s.id)), true);
  });

  test('cost center: set (named), removed with null; invalid ones refused and nothing changes', async () => {
    const s = await created(parent.key);
    const center = await costCenter(parent.key, `Unidade Sul ${randomUUID()}`);
    const set = await patch(parent.key, s.id, { cost_center_id: center });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.data.cost_center_id, center);
    assert.match(set.body.data.cost_center_name, /^Unidade Sul/);
    const theirs = await costCenter(outsider.key, 'Deles');
    assertError(await patch(parent.key, s.id, { cost_center_id: theirs }), 422, 'invalid_cost_center');
    // Status and a bad center together: neither applies.
    assertError(
      await patch(parent.key, s.id, { status: 'paused', cost_center_id: 'cc_missing' }),
      422,
      'invalid_cost_center',
    );
    const still = await get(parent.key, `/v1/subscriptions/${s.id}`);
    assert.equal(still.body.data.status, 'active');
    assert.equal(still.body.data.cost_center_id, center);
    const removed = await patch(parent.key, s.id, { cost_center_id: null });
    assert.equal(removed.body.data.cost_center_id, null);
    assert.equal(removed.body.data.cost_center_name, null);
    // A cancelled subscription keeps being classifiable, but a status change with it changes nothing.
    assert.equal((await patch(parent.key, s.id, { status: 'cancelled' })).status, 200);
    assertError(
      await patch(parent.key, s.id, { status: 'active', cost_center_id: center }),
      409,
      'subscription_cancelled',
    );
    assert.equal((await get(parent.key, `/v1/subscriptions/${s.id}`)).body.data.cost_center_id, null);
    assert.equal(
      (await patch(parent.key, s.id, { cost_center_id: center })).body.data.cost_center_id,
      center,
    );
    await app.settle();
    const listed = await get(parent.key, '/v1/subscriptions?status=cancelled&limit=100');
    const row = listed.body.data.find((x: { id: string }) => x.id === s.id);
    assert.equal(row.cost_center_id, center);
  });

  test('bad bodies: 422 for an empty body or an unknown status, 400 for unknown fields', async () => {
    const s = await created(parent.key);
    assertError(await patch(parent.key, s.id, {}), 422, 'validation_error');
    assertError(await patch(parent.key, s.id, { status: 'deleted' }), 422, 'validation_error');
    assertError(await patch(parent.key, s.id, { amount: 1 }), 400, 'invalid_json');
    assert.equal((await get(parent.key, `/v1/subscriptions/${s.id}`)).body.data.status, 'active');
  });

  test("writes only the own tenant: a child's is 403 forbidden; other tree or mode 404; scope of the method", async () => {
    const ofChild = await created(child.key);
    assertError(await patch(parent.key, ofChild.id, { status: 'paused' }), 403, 'forbidden');
    assertError(await patch(outsider.key, ofChild.id, { status: 'paused' }), 404, 'not_found');
    assertError(await patch(parentLive, ofChild.id, { status: 'paused' }), 404, 'not_found');
    assertError(await patch(parent.key, 'sub_missing', { status: 'paused' }), 404, 'not_found');
    const own = await created(parent.key);
    assertError(await patch(pixOnly, own.id, { status: 'paused' }), 403, 'insufficient_scope');
    assertError(await patch(readOnly, own.id, { status: 'paused' }), 403, 'insufficient_scope');
    assert.equal((await patch(boletoOnly, own.id, { status: 'paused' })).status, 200);
    assert.equal((await get(child.key, `/v1/subscriptions/${ofChild.id}`)).body.data.status, 'active');
  });
});

describe('DELETE /admin/subscriptions/{id} (SPEC 3.3, 5.7)', () => {
  // biome-ignore lint/suspicious/noExplicitAny: bearer headers by role
  let roles: any;
  let roleKey: string;

  beforeAll(async () => {
    roles = await roleTokens(app);
    roleKey = await issueKey(roles.tenantId);
  });

  const del = (headers: Record<string, string>, id: string) =>
    app.request('DELETE', `/admin/subscriptions/${id}`, { headers });

  test('a viewer cannot; another tree is 404; the tenant admin deletes: 204, then 404 everywhere, charges stay', async () => {
    const s = await created(roleKey);
    const charge = await app.request('POST', '/v1/boleto', {
      headers: { 'x-api-key': roleKey, 'idempotency-key': randomUUID() },
      json: boletoBody(),
    });
    assert.equal(charge.status, 201, charge.text);
    await givenIssuedCycle(s, 1, s.first_due_date, { transactionId: charge.body.data.id, checkoutId: null });
    assertError(await del(roles.viewer, s.id), 403, 'forbidden');
    const elsewhere = await created(parent.key);
    assertError(await del(roles.tenant_admin, elsewhere.id), 404, 'not_found');
    assertError(await app.request('DELETE', `/admin/subscriptions/${s.id}`), 401, 'unauthorized');
    const gone = await del(roles.tenant_admin, s.id);
    assert.equal(gone.status, 204, gone.text);
    assertError(await get(roleKey, `/v1/subscriptions/${s.id}`), 404, 'not_found');
    assertError(await get(roleKey, `/v1/subscriptions/${s.id}/cycles`), 404, 'not_found');
    assertError(await patch(roleKey, s.id, { status: 'paused' }), 404, 'not_found');
    assertError(await del(roles.tenant_admin, s.id), 404, 'not_found');
    assert.ok(!(await listIds(roleKey)).includes(s.id));
    const cycles = await app.gateway.ctx.db
      .selectFrom('subscription_cycles')
      .select('id')
      .where('subscription_id', '=', s.id)
      .execute();
    assert.deepEqual(cycles, []);
    const kept = await get(roleKey, `/v1/transactions/${charge.body.data.id}`);
    assert.equal(kept.status, 200, kept.text);
  });

  test("a super_admin deletes any tenant's, live ones too", async () => {
    const live = await created(parentLive);
    assert.equal((await del(roles.super_admin, live.id)).status, 204);
    assertError(await get(parentLive, `/v1/subscriptions/${live.id}`), 404, 'not_found');
    assertError(await del(roles.super_admin, 'sub_missing'), 404, 'not_found');
  });
});
