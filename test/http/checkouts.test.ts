import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { checkoutFollowJob } from '../../src/commands/checkouts/follow/job.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, assertError, bearer, logIn, startAdminApp } from '../support/admin.ts';
import { PAYER_ADDRESS, pixBody } from '../support/charges.ts';
import { createTestDatabase } from '../support/databases.ts';
import { issueExtraKey, type SeededKey, seedChildTenant, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp, type TestResponse } from '../support/http.ts';
import { jobDeps } from '../support/jobs.ts';

/**
 * Hosted checkouts over HTTP (issue 25; SPEC 2.7, 3.5, 4 common rules, 4.9, 5.3, 5.4, 6, 7, 8;
 * docs/decisions.md "Hosted checkout (issue 25)"): creation, replay and conflict, every 4xx the three
 * endpoints answer, tenancy, mode, scopes and the developer profile, list filters and paging; then the payer
 * page's POST (a charge per choice, one per form), the follower (payment, late payment, expiry) and the
 * checkout's callback_url on its charges (SPEC 6).
 */

let app: TestApp;
let parent: SeededKey;
let child: SeededKey;
let outsider: SeededKey;
let parentLive: string;
let pixOnly: string;
let readOnly: string;
let developer: string;
let adminToken: string;

const customer = pixBody().customer as Record<string, unknown>;
const body = (over: Record<string, unknown> = {}) => ({
  methods: ['pix', 'boleto'],
  amount: 15990,
  reference: 'pedido-1',
  description: 'Pedido 1',
  customer,
  ...over,
});

function post(key: string, json: unknown, idempotencyKey: string | null = randomUUID()) {
  return app.request('POST', '/v1/checkouts', {
    headers: { 'x-api-key': key, ...(idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey }) },
    json,
  });
}
const get = (key: string, path: string) => app.request('GET', path, { headers: { 'x-api-key': key } });

// biome-ignore lint/suspicious/noExplicitAny: response JSON, already validated against /openapi.json
async function created(key: string, over: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await post(key, body(over));
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

const issueKey = (tenantId: string, opts: Parameters<typeof issueExtraKey>[2] = {}) =>
  issueExtraKey(app.gateway.ctx, tenantId, opts);

beforeAll(async () => {
  app = await startAdminApp({
    ENABLE_SIMULATOR: 'true',
    CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });
  parent = await seedTenantAndKey(app.gateway.ctx, { tenantName: 'Loja da Ana' });
  child = await seedChildTenant(app.gateway.ctx, parent.tenantId);
  outsider = await seedTenantAndKey(app.gateway.ctx);
  parentLive = await issueKey(parent.tenantId, { livemode: true });
  pixOnly = await issueKey(parent.tenantId, { scopes: ['pix:write', 'transactions:read'] });
  readOnly = await issueKey(parent.tenantId, { scopes: ['transactions:read'] });
  developer = await issueKey(parent.tenantId, { accessProfile: 'developer' });
  adminToken = await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD);
});

afterAll(async () => {
  await app.close();
});

describe('POST /v1/checkouts (SPEC 4 common rules, 4.9)', () => {
  test('201: an open checkout of the key tenant and mode, with its signed url and defaults', async () => {
    const before = Date.now();
    const res = await post(parent.key, body({ callback_url: 'https://loja.example.com/hooks' }));
    assert.equal(res.status, 201, res.text);
    const c = res.body.data;
    assert.match(c.id, /^chk_/);
    assert.equal(c.tenant_id, parent.tenantId);
    assert.equal(c.livemode, false);
    assert.equal(c.status, 'open');
    assert.deepEqual(c.methods, ['pix', 'boleto']);
    assert.equal(c.amount, 15990);
    assert.equal(c.currency, 'BRL');
    assert.equal(c.reference, 'pedido-1');
    assert.equal(c.description, 'Pedido 1');
    // SPEC 2.2 rule 4 by analogy: phone and address never returned.
    assert.deepEqual(c.customer, {
      name: 'Maria Silva',
      document: '12345678901',
      email: 'maria@example.com',
    });
    assert.match(c.url, new RegExp(`/checkout/${c.id}/[A-Za-z0-9_-]{32}$`));
    // Default expiry: 86400 s (docs/decisions.md).
    const expires = Date.parse(c.expires_at);
    assert.ok(expires >= before + 86_400_000 - 1000 && expires <= Date.now() + 86_400_000 + 1000);
    assert.deepEqual(c.transaction_ids, []);
    assert.equal(c.paid_transaction_id, null);
    assert.deepEqual(c.late_payments, []);
    assert.equal(c.callback_url, 'https://loja.example.com/hooks');
    assert.equal(c.cost_center_id, null);
    assert.equal(c.cost_center_name, null);
  });

  test('replay: 200 with Idempotency-Replayed and the same checkout; another body is 409 idempotency_conflict', async () => {
    const key = randomUUID();
    const first = await post(parent.key, body(), key);
    assert.equal(first.status, 201, first.text);
    const again = await post(parent.key, { ...body(), methods: ['pix', 'boleto'] }, key);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.equal(again.body.data.id, first.body.data.id);
    assertError(await post(parent.key, body({ amount: 100 }), key), 409, 'idempotency_conflict');
    // SPEC 4: the scope is tenant + key; the same key in another tenant is another checkout.
    const elsewhere = await post(outsider.key, body(), key);
    assert.equal(elsewhere.status, 201, elsewhere.text);
    assert.notEqual(elsewhere.body.data.id, first.body.data.id);
  });

  test('expires_in sets the deadline (300 to 2592000)', async () => {
    const c = await created(parent.key, { expires_in: 300 });
    const left = Date.parse(c.expires_at) - Date.parse(c.created_at);
    assert.ok(Math.abs(left - 300_000) < 2000, String(left));
    for (const bad of [299, 2_592_001]) {
      const res = await post(parent.key, body({ expires_in: bad }));
      assertError(res, 422, 'validation_error');
    }
    // A fraction is not an integer of seconds: the strict JSON reader refuses it (SPEC 7 invalid_json).
    assertError(await post(parent.key, body({ expires_in: 300.5 })), 400, 'invalid_json');
  });

  test('400 idempotency_key_required: missing or outside the pattern', async () => {
    assertError(await post(parent.key, body(), null), 400, 'idempotency_key_required');
    assertError(await post(parent.key, body(), 'not valid!'), 400, 'idempotency_key_required');
  });

  test('400 invalid_json: unknown field, null body', async () => {
    assertError(await post(parent.key, { ...body(), provider_id: 'prv_x' }), 400, 'invalid_json');
    const res = await app.request('POST', '/v1/checkouts', {
      headers: { 'x-api-key': parent.key, 'idempotency-key': randomUUID() },
      raw: 'null',
    });
    assert.equal(res.status, 400, res.text);
  });

  test('401 unauthorized without a key or with a wrong one', async () => {
    const res = await app.request('POST', '/v1/checkouts', {
      headers: { 'idempotency-key': randomUUID() },
      json: body(),
    });
    assertError(res, 401, 'unauthorized');
    assertError(await post('sk_test_nope', body()), 401, 'unauthorized');
  });

  test('403 insufficient_scope: the write scope of EACH offered method (SPEC 5.3)', async () => {
    assertError(await post(pixOnly, body()), 403, 'insufficient_scope');
    assertError(await post(readOnly, body({ methods: ['pix'] })), 403, 'insufficient_scope');
    assertError(await post(pixOnly, body({ methods: ['pix', 'credit_card'] })), 403, 'insufficient_scope');
    const pixOnlyOk = await post(pixOnly, body({ methods: ['pix'] }));
    assert.equal(pixOnlyOk.status, 201, pixOnlyOk.text);
  });

  test('developer keys create and read checkouts (SPEC 5.4)', async () => {
    const c = await created(developer);
    assert.equal((await get(developer, `/v1/checkouts/${c.id}`)).status, 200);
  });

  test('413 request_too_large', async () => {
    const res = await post(parent.key, body({ description: 'x'.repeat(1024 * 1024 + 10) }));
    assertError(res, 413, 'request_too_large');
  });

  test('422 tenant_from_api_key', async () => {
    const res = await post(parent.key, body({ tenant_id: parent.tenantId }));
    assertError(res, 422, 'tenant_from_api_key');
  });

  test('422 validation_error naming the field', async () => {
    const cases: [Record<string, unknown>, string | undefined][] = [
      [{ methods: [] }, undefined],
      [{ methods: ['pix', 'pix'] }, undefined],
      [{ methods: ['ted'] }, undefined],
      [{ amount: 0 }, undefined],
      [{ amount: 100_000_001 }, undefined],
      [{ reference: '' }, undefined],
      [{ methods: ['pix'], boleto: { due_in_days: 3 } }, 'boleto'],
      [{ boleto: { due_in_days: 366 } }, undefined],
      [{ customer: { ...customer, phone: undefined } }, 'customer.phone'],
      [{ customer: { ...customer, address: undefined } }, 'customer.address'],
      [{ customer: { ...customer, email: undefined } }, 'customer.email'],
      [{ callback_url: 'https://127.0.0.1/hook' }, 'callback_url'],
      [{ callback_url: 'http://loja.example.com/hook' }, undefined],
    ];
    for (const [over, param] of cases) {
      const res = await post(parent.key, body(over));
      assertError(res, 422, 'validation_error');
      if (param) assert.equal(res.body.error.param, param, JSON.stringify(over));
    }
  });

  test('a customer without e-mail is enough for a Pix-only checkout', async () => {
    const c = await created(parent.key, { methods: ['pix'], customer: { ...customer, email: undefined } });
    assert.deepEqual(c.methods, ['pix']);
  });

  test('422 invalid_cost_center; a center of the tenant is named', async () => {
    assertError(await post(parent.key, body({ cost_center_id: 'cc_missing' })), 422, 'invalid_cost_center');
    const cc = await app.request('POST', '/v1/cost-centers', {
      headers: { 'x-api-key': parent.key },
      json: { name: 'Loja Centro' },
    });
    assert.equal(cc.status, 201, cc.text);
    assertError(
      await post(outsider.key, body({ cost_center_id: cc.body.data.id })),
      422,
      'invalid_cost_center',
    );
    const c = await created(parent.key, { cost_center_id: cc.body.data.id });
    assert.equal(c.cost_center_id, cc.body.data.id);
    assert.equal(c.cost_center_name, 'Loja Centro');
  });

  test('403 tenant_suspended', async () => {
    const other = await seedTenantAndKey(app.gateway.ctx);
    const res = await app.request('POST', `/admin/tenants/${other.tenantId}/suspend`, {
      headers: bearer(adminToken),
    });
    assert.equal(res.status, 200, res.text);
    assertError(await post(other.key, body()), 403, 'tenant_suspended');
  });

  test('422 provider_not_configured: routing is checked for each method at creation (nothing stored)', async () => {
    const db = await createTestDatabase();
    const off = await startTestApp({ ENABLE_SIMULATOR: 'false' }, undefined, db);
    try {
      const demo = await seedTenantAndKey(off.gateway.ctx);
      const res = await off.request('POST', '/v1/checkouts', {
        headers: { 'x-api-key': demo.key, 'idempotency-key': randomUUID() },
        json: body(),
      });
      assertError(res, 422, 'provider_not_configured');
      // A card needs the key that seals card tokens (none configured here): refused at creation too.
      const card = await off.request('POST', '/v1/checkouts', {
        headers: { 'x-api-key': demo.key, 'idempotency-key': randomUUID() },
        json: body({ methods: ['credit_card'] }),
      });
      assertError(card, 422, 'provider_not_configured');
      assert.match(card.body.error.message, /CREDENTIALS_ENCRYPTION_KEY/);
      await off.settle();
      const list = await off.request('GET', '/v1/checkouts', { headers: { 'x-api-key': demo.key } });
      assert.deepEqual(list.body.data, []);
    } finally {
      await off.close();
      await db.drop();
    }
  });
});

describe('upgrade note (CHANGELOG.md, issue 25): a simulator record created before cards', () => {
  test('without credit_card in enabled_methods: 422 provider_method_disabled for card checkouts and charges; the PATCH of the note enables them', async () => {
    const admin = bearer(adminToken);
    const patch = async (methods: string[]) => {
      const res = await app.request('PATCH', '/admin/providers/prv_simulator', {
        headers: admin,
        json: { enabled_methods: methods },
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.data.enabled_methods, methods);
      await app.settle();
    };
    const cardCharge = () =>
      app.request('POST', '/v1/credit-card', {
        headers: { 'x-api-key': parent.key, 'idempotency-key': randomUUID() },
        json: {
          ...pixBody(),
          credit_card: {
            holder: 'MARIA SILVA',
            number: '4111111111111111',
            expiration: '12/2035',
            security_code: '123',
          },
        },
      });
    // The record as a gateway before issue 25 created it (and a restart keeps: only absence is repaired).
    await patch(['pix', 'boleto']);
    try {
      assertError(
        await post(parent.key, body({ methods: ['credit_card'] })),
        422,
        'provider_method_disabled',
      );
      assertError(await cardCharge(), 422, 'provider_method_disabled');
      await patch(['pix', 'boleto', 'credit_card']);
      const charged = await cardCharge();
      assert.equal(charged.status, 201, charged.text);
      assert.equal(charged.body.data.status, 'paid');
      await created(parent.key, { methods: ['credit_card'] });
    } finally {
      await patch(['pix', 'boleto', 'credit_card']);
    }
  });
});

describe('GET /v1/checkouts/{id} and GET /v1/checkouts (SPEC 4.9 with 4.3, 4.4)', () => {
  test('a parent reads its own and its child checkouts; the child not the parent; another tree 404', async () => {
    const own = await created(parent.key);
    const ofChild = await created(child.key);
    assert.equal((await get(parent.key, `/v1/checkouts/${own.id}`)).body.data.id, own.id);
    assert.equal((await get(parent.key, `/v1/checkouts/${ofChild.id}`)).status, 200);
    assertError(await get(child.key, `/v1/checkouts/${own.id}`), 404, 'not_found');
    assertError(await get(outsider.key, `/v1/checkouts/${own.id}`), 404, 'not_found');
    assertError(await get(parent.key, '/v1/checkouts/chk_missing'), 404, 'not_found');
    assertError(await get(parent.key, '/v1/checkouts/txn_whatever'), 404, 'not_found');
  });

  test('the other mode: 404 and not listed (SPEC 5.2)', async () => {
    const testMode = await created(parent.key, { reference: 'mode-check' });
    assertError(await get(parentLive, `/v1/checkouts/${testMode.id}`), 404, 'not_found');
    await app.settle();
    const live = await get(parentLive, '/v1/checkouts?reference=mode-check');
    assert.equal(live.status, 200, live.text);
    assert.deepEqual(live.body.data, []);
  });

  test('scope transactions:read: 403 without it; 401 without a key', async () => {
    const noRead = await issueKey(parent.tenantId, { scopes: ['pix:write'] });
    assertError(await get(noRead, '/v1/checkouts'), 403, 'insufficient_scope');
    assertError(await get(noRead, '/v1/checkouts/chk_x'), 403, 'insufficient_scope');
    assertError(await app.request('GET', '/v1/checkouts'), 401, 'unauthorized');
  });

  test('filters: reference (exact), include_descendants, tenant_id; newest first; limit and offset', async () => {
    const ref = `ref-${randomUUID()}`;
    const a = await created(parent.key, { reference: ref });
    const b = await created(parent.key, { reference: ref });
    const c = await created(child.key, { reference: ref });
    await app.settle();
    const own = await get(parent.key, `/v1/checkouts?reference=${ref}`);
    assert.deepEqual(
      own.body.data.map((x: { id: string }) => x.id),
      [b.id, a.id],
    );
    assert.deepEqual(own.body.meta, { limit: 50, offset: 0, count: 2 });
    const tree = await get(parent.key, `/v1/checkouts?reference=${ref}&include_descendants=true`);
    assert.deepEqual(
      tree.body.data.map((x: { id: string }) => x.id),
      [c.id, b.id, a.id],
    );
    const childOnly = await get(parent.key, `/v1/checkouts?reference=${ref}&tenant_id=${child.tenantId}`);
    assert.deepEqual(
      childOnly.body.data.map((x: { id: string }) => x.id),
      [c.id],
    );
    assertError(await get(child.key, `/v1/checkouts?tenant_id=${parent.tenantId}`), 404, 'not_found');
    const page1 = await get(parent.key, `/v1/checkouts?reference=${ref}&include_descendants=true&limit=2`);
    const page2 = await get(
      parent.key,
      `/v1/checkouts?reference=${ref}&include_descendants=true&limit=2&offset=2`,
    );
    assert.deepEqual(
      [...page1.body.data, ...page2.body.data].map((x: { id: string }) => x.id),
      [c.id, b.id, a.id],
    );
    assert.equal(page2.body.meta.count, 1);
    // Listed without phone or address.
    assert.deepEqual(Object.keys(own.body.data[0].customer).sort(), ['document', 'email', 'name']);
    assertError(await get(parent.key, '/v1/checkouts?limit=0'), 422, 'validation_error');
    assertError(await get(parent.key, '/v1/checkouts?include_descendants=yes'), 422, 'validation_error');
  });
});

/** The page's path, nonce of a method's form, and a form post to it. */
async function openPage(url: string) {
  const path = new URL(url).pathname;
  const page = await app.request('GET', path);
  assert.equal(page.status, 200, page.text);
  return { path, page };
}
function nonceOf(html: string, method: string): string {
  const m = new RegExp(
    `name="method" value="${method}">\\s*<input type="hidden" name="nonce" value="([^"]+)"`,
  ).exec(html);
  assert.ok(m?.[1], `a ${method} form`);
  return m[1];
}
/** The page's card form with a test card (src/providers/test-cards.ts). */
const card = (number: string, nonce: string) => ({
  method: 'credit_card',
  nonce,
  cc_holder: 'MARIA SILVA',
  cc_number: number,
  cc_exp: '12/2035',
  cc_csc: '123',
});
async function choose(path: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${app.baseUrl + path}/pay`, {
    method: 'POST',
    body: new URLSearchParams(fields),
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: app.baseUrl },
  });
}
/** The page's own poll (not an API operation: not in /openapi.json). */
async function pageStatus(path: string): Promise<{ status: string; state: string; final: boolean }> {
  const res = await fetch(`${app.baseUrl}${path}/status`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  return (await res.json()) as { status: string; state: string; final: boolean };
}
const payer = {
  name: 'Maria Silva',
  document: '12345678901',
  email: 'maria@example.com',
  phone: '11987654321',
  ...PAYER_ADDRESS,
};
async function simulate(id: string, status: 'paid' | 'expired'): Promise<TestResponse> {
  const res = await app.request('POST', `/v1/transactions/${id}/simulate`, {
    headers: { 'x-api-key': parent.key },
    json: { status },
  });
  assert.equal(res.status, 200, res.text);
  return res;
}

describe('the payer page makes the charges; the checkout follows them (SPEC 2.7, 3.5, 6)', () => {
  test('wrong signature, another id, a charge link signature: the same 404 page', async () => {
    const c = await created(parent.key);
    const path = new URL(c.url).pathname;
    const wrong = await app.request('GET', `${path.slice(0, -1)}${path.endsWith('A') ? 'B' : 'A'}`);
    assert.equal(wrong.status, 404);
    assert.match(wrong.headers.get('content-type') ?? '', /text\/html/);
    assert.equal((await app.request('GET', `/checkout/chk_other/${path.split('/').at(-1)}`)).status, 404);
    assert.equal(
      (
        await choose(`${path.slice(0, -1)}${path.endsWith('x') ? 'y' : 'x'}`, {
          method: 'pix',
          nonce: 'a'.repeat(22),
        })
      ).status,
      404,
    );
  });

  test('the page: headers, merchant, amount, methods; no customer asks the payer', async () => {
    const c = await created(parent.key, { customer: undefined });
    const { page } = await openPage(c.url);
    assert.equal(page.headers.get('cache-control'), 'no-store');
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    assert.equal(page.headers.get('referrer-policy'), 'same-origin');
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'.*form-action 'self'/);
    assert.ok(page.text.includes('Loja da Ana'));
    assert.ok(page.text.includes('R$&#160;159,90') || page.text.includes('R$\u00a0159,90'), 'amount');
    assert.ok(page.text.includes('Pagar com Pix') && page.text.includes('Gerar boleto'));
    assert.ok(page.text.includes('autocomplete="postal-code"'), 'asks the payer');
  });

  test('Pix chosen: one charge per form (double submit), linked, paid -> completed; the charge carries the checkout facts', async () => {
    const c = await created(parent.key, {
      customer: undefined,
      callback_url: 'https://loja.example.com/hooks',
    });
    const { path, page } = await openPage(c.url);
    const nonce = nonceOf(page.text, 'pix');
    const first = await choose(path, { method: 'pix', nonce, ...payer });
    assert.equal(first.status, 303);
    assert.equal(first.headers.get('location'), path);
    const second = await choose(path, { method: 'pix', nonce, ...payer });
    assert.equal(second.status, 303);
    const after = (await get(parent.key, `/v1/checkouts/${c.id}`)).body.data;
    assert.equal(after.status, 'processing');
    assert.equal(after.transaction_ids.length, 1, 'a double submit makes one charge');
    const txnId = after.transaction_ids[0];
    const txn = (await get(parent.key, `/v1/transactions/${txnId}`)).body.data;
    assert.equal(txn.method, 'pix');
    assert.equal(txn.amount, 15990);
    assert.equal(txn.reference, 'pedido-1');
    assert.equal(txn.livemode, false);
    assert.equal(txn.tenant_id, parent.tenantId);
    // SPEC 6: the checkout's callback_url receives its charges' events.
    assert.equal(txn.callback_url, 'https://loja.example.com/hooks');
    const shown = await app.request('GET', path);
    assert.ok(shown.text.includes('SIMULADO — não pagável'));
    assert.ok(!shown.text.includes('<svg'), 'nothing scannable for a simulated charge');
    await simulate(txnId, 'paid');
    const status = await pageStatus(path);
    assert.equal(status.status, 'completed');
    assert.equal(status.final, true);
    const done = (await get(parent.key, `/v1/checkouts/${c.id}`)).body.data;
    assert.equal(done.status, 'completed');
    assert.equal(done.paid_transaction_id, txnId);
    const closed = await choose(path, { method: 'boleto', nonce: nonceOf(page.text, 'boleto'), ...payer });
    assert.equal(closed.status, 200, 'a completed checkout takes no new choice: its page');
    assert.ok((await closed.text()).includes('Pagamento simulado confirmado'));
    assert.equal((await get(parent.key, `/v1/checkouts/${c.id}`)).body.data.transaction_ids.length, 1);
  });

  test('a refused payer field answers the page again (422) naming it; nothing is charged', async () => {
    const c = await created(parent.key, { customer: undefined });
    const { path, page } = await openPage(c.url);
    const res = await choose(path, {
      method: 'boleto',
      nonce: nonceOf(page.text, 'boleto'),
      ...payer,
      email: '',
    });
    assert.equal(res.status, 422);
    const html = await res.text();
    assert.ok(html.includes('Confira o e-mail.'), html.slice(0, 400));
    assert.ok(html.includes('value="Maria Silva"'), 'what the payer typed is kept');
    assert.deepEqual((await get(parent.key, `/v1/checkouts/${c.id}`)).body.data.transaction_ids, []);
  });

  test('Pix expired unpaid, then boleto; a second payment after completion is a late payment (never lost)', async () => {
    const c = await created(parent.key);
    const { path, page } = await openPage(c.url);
    assert.ok(!page.text.includes('autocomplete="postal-code"'), 'a customer: nothing asked');
    await choose(path, { method: 'pix', nonce: nonceOf(page.text, 'pix') });
    const pixId = (await get(parent.key, `/v1/checkouts/${c.id}`)).body.data.transaction_ids[0];
    await simulate(pixId, 'expired');
    const reopened = await app.request('GET', path);
    assert.ok(reopened.text.includes('O pagamento anterior não foi concluído'));
    assert.equal((await get(parent.key, `/v1/checkouts/${c.id}`)).body.data.status, 'open');
    await choose(path, { method: 'boleto', nonce: nonceOf(reopened.text, 'boleto') });
    // While the boleto is pending the payer may still switch to Pix.
    const again = await app.request('GET', path);
    await choose(path, { method: 'pix', nonce: nonceOf(again.text, 'pix') });
    const three = (await get(parent.key, `/v1/checkouts/${c.id}`)).body.data;
    assert.equal(three.transaction_ids.length, 3);
    const [, boletoId, pix2Id] = three.transaction_ids;
    assert.equal((await get(parent.key, `/v1/transactions/${boletoId}`)).body.data.method, 'boleto');
    await simulate(boletoId, 'paid');
    await pageStatus(path);
    await simulate(pix2Id, 'paid');
    await pageStatus(path);
    const end = (await get(parent.key, `/v1/checkouts/${c.id}`)).body.data;
    assert.equal(end.status, 'completed');
    assert.equal(end.paid_transaction_id, boletoId);
    assert.deepEqual(end.late_payments, [pix2Id]);
    await app.settle();
    const listed = (await get(parent.key, `/v1/checkouts?reference=pedido-1&limit=100`)).body.data.find(
      (x: { id: string }) => x.id === c.id,
    );
    assert.deepEqual(listed.late_payments, [pix2Id]);
    assert.equal(listed.status, 'completed');
  });

  test('card: a declined card, then another card approved -> completed; the card never rests in the checkout, the page or the read models', async () => {
    const c = await created(parent.key, { methods: ['credit_card', 'pix'] });
    const { path, page } = await openPage(c.url);
    assert.ok(page.text.includes('autocomplete="cc-number"') && page.text.includes('autocomplete="cc-csc"'));
    const declined = await choose(path, card('4000000000000002', nonceOf(page.text, 'credit_card')));
    assert.equal(declined.status, 303);
    const afterDecline = await app.request('GET', path);
    assert.ok(afterDecline.text.includes('O cartão foi recusado'), 'the payer may try again');
    const mid = (await get(parent.key, `/v1/checkouts/${c.id}`)).body.data;
    assert.equal(mid.status, 'open');
    const first = (await get(parent.key, `/v1/transactions/${mid.transaction_ids[0]}`)).body.data;
    assert.equal(first.method, 'credit_card');
    assert.equal(first.status, 'failed');
    const bad = await choose(path, {
      ...card('4111111111111112', nonceOf(afterDecline.text, 'credit_card')),
    });
    assert.equal(bad.status, 422, 'a number failing Luhn is refused on the page');
    const badHtml = await bad.text();
    assert.ok(badHtml.includes('Confira o número do cartão.'));
    assert.ok(!badHtml.includes('4111111111111112'), 'the card is never shown back');
    const approved = await choose(path, card('4111111111111111', nonceOf(afterDecline.text, 'credit_card')));
    assert.equal(approved.status, 303);
    const done = (await get(parent.key, `/v1/checkouts/${c.id}`)).body.data;
    assert.equal(done.status, 'completed');
    assert.equal(done.transaction_ids.length, 2);
    assert.equal(done.paid_transaction_id, done.transaction_ids[1]);
    const events = await app.gateway.ctx.db
      .selectFrom('events')
      .select('data')
      .where('stream_id', 'like', `checkout-${c.id}%`)
      .execute();
    await app.settle();
    const rows = await app.gateway.ctx.db
      .selectFrom('checkouts')
      .selectAll()
      .where('id', '=', c.id)
      .execute();
    const stored = JSON.stringify([events, rows]);
    for (const secret of ['4111111111111111', '4000000000000002', '"123"'])
      assert.ok(!stored.includes(secret));
    assert.ok(!app.logs.some((l) => l.includes('4111111111111111') || l.includes('4000000000000002')));
  });

  test('carding cap: after 5 declined cards the page drops the card form and a card post is refused like a method not offered; Pix stays', async () => {
    const reference = `carding-${randomUUID()}`;
    const c = await created(parent.key, { methods: ['credit_card', 'pix'], reference });
    const path = new URL(c.url).pathname;
    // The simulator's decline test card (src/providers/test-cards.ts), five times, each from a fresh page.
    for (let i = 1; i <= 5; i++) {
      const { page } = await openPage(c.url);
      assert.ok(page.text.includes('autocomplete="cc-number"'), `the card form before decline ${i}`);
      const declined = await choose(path, card('4000000000000002', nonceOf(page.text, 'credit_card')));
      assert.equal(declined.status, 303, `decline ${i}`);
    }
    const capped = (await get(parent.key, `/v1/checkouts/${c.id}`)).body.data;
    assert.equal(capped.status, 'open');
    assert.equal(capped.transaction_ids.length, 5);
    const { page } = await openPage(c.url);
    assert.ok(!page.text.includes('autocomplete="cc-number"'), 'no card form past the cap');
    assert.ok(!page.text.includes('name="method" value="credit_card"'));
    assert.ok(page.text.includes('Pagar com Pix'), 'the other method stays');
    assert.ok(page.text.includes('Este link não aceita mais cartão'));
    // A post of the card form anyway (an old page, a script), even with an approved card: refused before any
    // charge, answered as a post of a method this checkout never offered (boleto).
    const nonce = () => randomBytes(16).toString('base64url');
    const refused = await choose(path, card('4111111111111111', nonce()));
    const notOffered = await choose(path, { method: 'boleto', nonce: nonce() });
    assert.equal(refused.status, 422);
    assert.equal(notOffered.status, 422);
    assert.ok(!(await refused.text()).includes('4111111111111111'));
    assert.equal((await get(parent.key, `/v1/checkouts/${c.id}`)).body.data.transaction_ids.length, 5);
    await app.settle();
    const charges = await get(parent.key, `/v1/transactions?reference=${reference}&limit=100`);
    assert.equal(charges.status, 200, charges.text);
    assert.equal(charges.body.data.length, 5, 'nothing charged past the cap');
    // The payer still pays by Pix.
    const pix = await choose(path, { method: 'pix', nonce: nonceOf(page.text, 'pix') });
    assert.equal(pix.status, 303);
    const after = (await get(parent.key, `/v1/checkouts/${c.id}`)).body.data;
    assert.equal(after.status, 'processing');
    assert.equal(after.transaction_ids.length, 6);
    assert.equal(
      (await get(parent.key, `/v1/transactions/${after.transaction_ids[5]}`)).body.data.method,
      'pix',
    );
  });

  test('reconciliation: a card charge reserved whose result was not saved (SPEC 7 reconciliation_required) is still linked; the API and the page show it', async () => {
    const c = await created(parent.key, { methods: ['credit_card', 'pix'] });
    const { path, page } = await openPage(c.url);
    // The charge's outcome append fails once (a database lost after the provider answered): the result is
    // not saved, the Reserved event is.
    const store = app.gateway.ctx.store;
    const append = store.append;
    const OUTCOMES = [
      'Transaction.Captured',
      'Transaction.Issued',
      'Transaction.Refused',
      'Transaction.Unconfirmed',
    ];
    let failed: string | null = null;
    store.append = async (stream, events, expected) => {
      if (
        failed === null &&
        stream.startsWith('transaction-') &&
        events.some((e) => OUTCOMES.includes(e.type))
      ) {
        failed = stream.replace(/^transaction-/, '');
        throw new Error('connection terminated (injected)');
      }
      return append.call(store, stream, events, expected);
    };
    let res: Response;
    try {
      res = await choose(path, card('4111111111111111', nonceOf(page.text, 'credit_card')));
    } finally {
      store.append = append;
    }
    assert.ok(failed, 'the outcome append was attempted and failed');
    const id: string = failed;
    // SPEC 7: 503 reconciliation_required; on the page, the page again with the charge and "do not pay again".
    assert.equal(res.status, 503);
    const html = await res.text();
    assert.ok(html.includes('Não pague de novo'), 'the payer is told not to pay again');
    assert.ok(
      !html.includes('Tente outra forma'),
      'not invited to pay another way while the card may be charged',
    );
    assert.ok(
      html.includes('Sua cobrança (Cartão de crédito) está em processamento'),
      'the page shows the charge',
    );
    assert.ok(!html.includes('4111111111111111'));
    // Linked before the refusal went up (payCheckout): the API shows the charge on the checkout.
    const shown = (await get(parent.key, `/v1/checkouts/${c.id}`)).body.data;
    assert.deepEqual(shown.transaction_ids, [id]);
    assert.equal(shown.status, 'processing');
    const charge = (await get(parent.key, `/v1/transactions/${id}`)).body.data;
    assert.equal(charge.method, 'credit_card');
    assert.equal(charge.status, 'processing', 'reserved, its outcome not recorded');
    await app.settle();
    const listed = (await get(parent.key, `/v1/checkouts?reference=pedido-1&limit=100`)).body.data.find(
      (x: { id: string }) => x.id === c.id,
    );
    assert.deepEqual(listed.transaction_ids, [id]);
    // The page read after: the same charge, still pending.
    const again = await app.request('GET', path);
    assert.ok(again.text.includes('Sua cobrança (Cartão de crédito) está em processamento'));
    assert.deepEqual(await pageStatus(path), {
      status: 'processing',
      state: 'processing.1.processing',
      final: false,
    });
  });

  test('the follower job: a payment seen without any page read; an open checkout expires at its deadline', async () => {
    const paid = await created(parent.key);
    const { path, page } = await openPage(paid.url);
    await choose(path, { method: 'pix', nonce: nonceOf(page.text, 'pix') });
    const txnId = (await get(parent.key, `/v1/checkouts/${paid.id}`)).body.data.transaction_ids[0];
    await simulate(txnId, 'paid');
    const stale = await created(parent.key, { expires_in: 300 });
    await app.settle();
    const job = checkoutFollowJob({ batchSize: 1000 });
    const deps = jobDeps(app.gateway.ctx.db, app.gateway.ctx.store);
    await job.run(deps, { now: new Date() });
    assert.equal((await get(parent.key, `/v1/checkouts/${paid.id}`)).body.data.status, 'completed');
    assert.equal((await get(parent.key, `/v1/checkouts/${stale.id}`)).body.data.status, 'open');
    await job.run(deps, { now: new Date(Date.now() + 301_000) });
    assert.equal((await get(parent.key, `/v1/checkouts/${stale.id}`)).body.data.status, 'expired');
  });

  test('the follower refreshes a Pix left pending past its deadline: expired, and the link offers payment again (SPEC 3.1, 4.10)', async () => {
    const c = await created(parent.key);
    const { path, page } = await openPage(c.url);
    await choose(path, { method: 'pix', nonce: nonceOf(page.text, 'pix') });
    const txnId = (await get(parent.key, `/v1/checkouts/${c.id}`)).body.data.transaction_ids[0];
    const charge = (await get(parent.key, `/v1/transactions/${txnId}`)).body.data;
    assert.equal(charge.status, 'pending');
    await app.settle();
    const job = checkoutFollowJob({ batchSize: 1000 });
    const deps = jobDeps(app.gateway.ctx.db, app.gateway.ctx.store);
    // Before the Pix's deadline (SPEC 4.1: expires_in, default 3600 s) nothing moves.
    await job.run(deps, { now: new Date(Date.parse(charge.expires_at) - 1000) });
    assert.equal((await get(parent.key, `/v1/transactions/${txnId}`)).body.data.status, 'pending');
    assert.equal((await get(parent.key, `/v1/checkouts/${c.id}`)).body.data.status, 'processing');
    // Past it (and the follower's 5 s interval), before the checkout's own deadline: the Pix expires and the
    // checkout is open again.
    await job.run(deps, { now: new Date(Date.parse(charge.expires_at) + 10_000) });
    assert.equal((await get(parent.key, `/v1/transactions/${txnId}`)).body.data.status, 'expired');
    assert.equal((await get(parent.key, `/v1/checkouts/${c.id}`)).body.data.status, 'open');
    const again = await openPage(c.url);
    assert.ok(nonceOf(again.page.text, 'pix'), 'the page offers Pix again');
  });
});
