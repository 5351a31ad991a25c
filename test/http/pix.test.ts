import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { createCostCenter } from '../../src/commands/cost-centers/create/handler.ts';
import { updateCostCenter } from '../../src/commands/cost-centers/update/handler.ts';
import { SIMULATOR_PROVIDER_ID } from '../../src/commands/providers/bootstrap-simulator.ts';
import { providerDeps } from '../../src/commands/providers/deps.ts';
import { createRoutingRule } from '../../src/commands/routing-rules/create/handler.ts';
import { SIMULATOR_PIX_MARKER } from '../../src/providers/simulator.ts';
import { pixBody } from '../support/charges.ts';
import { commandDeps, type SeededKey, seedChildTenant, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

/** SPEC 1 (simulator row), 2.2, 2.3, 3.1, 4 common rules, 4.1, 4.4, 4.5, 7: POST /v1/pix and the reads. */

const SECRET = 'pix-test-document-signing-secret-0123456789';
const metadata = { actor: 'system:test', request_id: 'req_test' };
let app: TestApp;
let live: SeededKey;
let test_: SeededKey;
let child: SeededKey;
let outsider: SeededKey;
let counter = 0;

function withCustomer(patch: Record<string, unknown>, address: Record<string, unknown> = {}) {
  const base = pixBody().customer as Record<string, unknown>;
  return pixBody({
    customer: { ...base, ...patch, address: { ...(base.address as Record<string, unknown>), ...address } },
  });
}

function post(key: string, json: unknown, idem: string | null = `pix-${++counter}`) {
  return app.request('POST', '/v1/pix', {
    headers: { 'x-api-key': key, ...(idem === null ? {} : { 'idempotency-key': idem }) },
    json,
  });
}

beforeAll(async () => {
  app = await startTestApp({ DOCUMENT_SIGNING_SECRET: SECRET, ENABLE_SIMULATOR: 'true' });
  live = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
  test_ = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
  child = await seedChildTenant(app.gateway.ctx, live.tenantId, { livemode: true });
  outsider = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
});
afterAll(() => app.close());

describe('POST /v1/pix (SPEC 4.1, 1 simulator row, 2.2)', () => {
  test('a live key routed to the simulator: 201, simulated, sandbox, unmistakable marker, signed document_url', async () => {
    const before_ = Date.now();
    const res = await post(live.key, pixBody({ expires_in: 600 }));
    assert.equal(res.status, 201, res.text);
    const t = res.body.data;
    assert.match(t.id, /^txn_/);
    assert.equal(t.tenant_id, live.tenantId);
    assert.equal(t.status, 'pending');
    assert.equal(t.method, 'pix');
    assert.equal(t.amount, 1250);
    assert.equal(t.currency, 'BRL');
    assert.equal(t.simulated, true);
    assert.equal(t.environment, 'sandbox');
    assert.equal(t.livemode, true);
    assert.ok(t.pix_copy_paste.startsWith(SIMULATOR_PIX_MARKER));
    assert.ok(!t.pix_copy_paste.startsWith('000201'), 'not an EMV payload');
    const expires = Date.parse(t.expires_at);
    assert.ok(expires >= before_ + 600_000 - 2000 && expires <= Date.now() + 600_000 + 2000);
    assert.match(t.document_url, new RegExp(`/cobranca/${t.id}/[A-Za-z0-9_-]+$`));
    assert.equal(t.boleto_url, null);
    assert.equal(res.headers.get('idempotency-replayed'), null);
  });

  test('a test-mode key: livemode false, simulated true, no provider record (SPEC 1, 5.2)', async () => {
    const res = await post(test_.key, pixBody());
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.livemode, false);
    assert.equal(res.body.data.simulated, true);
    assert.equal(res.body.data.environment, 'sandbox');
    await app.settle();
    const row = await app.gateway.ctx.db
      .selectFrom('transactions')
      .select('provider_id')
      .where('id', '=', res.body.data.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.provider_id, null);
  });

  test('expires_in omitted or 0 gives 3600; outside 60..86400 is 422 (SPEC 4.1)', async () => {
    for (const body of [pixBody(), pixBody({ expires_in: 0 })]) {
      const res = await post(live.key, body);
      assert.equal(res.status, 201, res.text);
      const snap = await app.request('GET', `/v1/transactions/${res.body.data.id}/request`, {
        headers: { 'x-api-key': live.key },
      });
      assert.equal(snap.body.data.request.expires_in, 3600);
    }
    for (const expires_in of [59, 86_401, -1]) {
      const res = await post(live.key, pixBody({ expires_in }));
      assert.equal(res.status, 422, `${expires_in}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_error');
    }
    assert.equal((await post(live.key, pixBody({ expires_in: 60 }))).status, 201);
    assert.equal((await post(live.key, pixBody({ expires_in: 86_400 }))).status, 201);
  });

  test('amount: integer 1..100000000; fractions and strings are 400 invalid_json (SPEC 1, 4.1)', async () => {
    for (const amount of [0, 100_000_001]) {
      const res = await post(live.key, pixBody({ amount }));
      assert.equal(res.status, 422, res.text);
    }
    for (const amount of ['1250', 12.5]) {
      const res = await post(live.key, pixBody({ amount }));
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'invalid_json');
    }
    assert.equal((await post(live.key, pixBody({ amount: 100_000_000 }))).status, 201);
  });

  test('text limits are UTF-8 bytes after trim (SPEC 4.1, 8)', async () => {
    assert.equal((await post(live.key, pixBody({ reference: '   ' }))).status, 422);
    assert.equal((await post(live.key, pixBody({ reference: 'a'.repeat(101) }))).status, 422);
    // 50 two-byte characters = 100 bytes, plus spaces trimmed away.
    assert.equal((await post(live.key, pixBody({ reference: `  ${'é'.repeat(50)}  ` }))).status, 201);
    assert.equal((await post(live.key, pixBody({ reference: 'é'.repeat(51) }))).status, 422);
    assert.equal((await post(live.key, pixBody({ description: 'd'.repeat(201) }))).status, 422);
    assert.equal((await post(live.key, withCustomer({ name: 'A' }))).status, 422);
    assert.equal((await post(live.key, withCustomer({ name: 'n'.repeat(121) }))).status, 422);
    assert.equal((await post(live.key, withCustomer({}, { street: 'x' }))).status, 422);
    assert.equal((await post(live.key, withCustomer({}, { number: 'n'.repeat(21) }))).status, 422);
    assert.equal((await post(live.key, withCustomer({}, { number: 'S/N' }))).status, 201);
    assert.equal((await post(live.key, withCustomer({}, { complement: 'c'.repeat(121) }))).status, 422);
    assert.equal((await post(live.key, withCustomer({}, { district: 'd' }))).status, 422);
    assert.equal((await post(live.key, withCustomer({}, { city: 'c'.repeat(81) }))).status, 422);
  });

  test('phone: required, digits only after trim, 20 bytes of the ORIGINAL value (SPEC 4.1)', async () => {
    assert.equal((await post(live.key, withCustomer({ phone: ' 11987654321 ' }))).status, 201);
    assert.equal((await post(live.key, withCustomer({ phone: '1'.repeat(20) }))).status, 201);
    // 19 digits plus two spaces: 21 bytes in the original value.
    assert.equal((await post(live.key, withCustomer({ phone: ` ${'1'.repeat(19)} ` }))).status, 422);
    assert.equal((await post(live.key, withCustomer({ phone: '(11) 98765-4321' }))).status, 422);
    assert.equal((await post(live.key, withCustomer({ phone: '   ' }))).status, 422);
    const body = pixBody();
    const { phone: _p, ...noPhone } = body.customer as Record<string, unknown>;
    const res = await post(live.key, { ...body, customer: noPhone });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'validation_error');
  });

  test('address: required; zip 8 digits; a valid state among the 27 (SPEC 4.1)', async () => {
    const body = pixBody();
    const { address: _a, ...noAddress } = body.customer as Record<string, unknown>;
    assert.equal((await post(live.key, { ...body, customer: noAddress })).status, 422);
    assert.equal((await post(live.key, withCustomer({}, { zip_code: '1310100' }))).status, 422);
    assert.equal((await post(live.key, withCustomer({}, { zip_code: '01310-100' }))).status, 422);
    assert.equal((await post(live.key, withCustomer({}, { state: 'XX' }))).status, 422);
    assert.equal((await post(live.key, withCustomer({}, { state: ' rj ' }))).status, 201);
    assert.equal((await post(live.key, withCustomer({}, { state: 'DF' }))).status, 201);
  });

  test('document 11 or 14 alphanumerics; email with @ up to 254 bytes (SPEC 4.1)', async () => {
    assert.equal((await post(live.key, withCustomer({ document: '12.345.678/0001-90' }))).status, 422);
    assert.equal((await post(live.key, withCustomer({ document: '123456789012' }))).status, 422);
    assert.equal((await post(live.key, withCustomer({ document: ' 12abc678000190 ' }))).status, 201);
    assert.equal((await post(live.key, withCustomer({ email: 'no-at.example.com' }))).status, 422);
    assert.equal((await post(live.key, withCustomer({ email: `${'a'.repeat(250)}@b.co` }))).status, 422);
    assert.equal((await post(live.key, withCustomer({ email: ' Maria@Example.COM ' }))).status, 201);
  });

  test('the snapshot keeps original values; tenant and defaults resolved (SPEC 2.3, 4.1, 4.5)', async () => {
    const res = await post(live.key, withCustomer({ email: ' Maria@Example.COM ' }, { state: ' sp ' }));
    assert.equal(res.status, 201, res.text);
    const snap = await app.request('GET', `/v1/transactions/${res.body.data.id}/request`, {
      headers: { 'x-api-key': live.key },
    });
    assert.equal(snap.status, 200, snap.text);
    assert.equal(snap.body.data.transaction_id, res.body.data.id);
    assert.equal(snap.body.data.source, 'captured');
    assert.deepEqual(snap.body.data.missing_fields, []);
    assert.equal(snap.body.data.provider_request, null);
    const r = snap.body.data.request;
    assert.equal(r.tenant_id, live.tenantId);
    assert.equal(r.method, 'pix');
    assert.equal(r.customer.email, ' Maria@Example.COM ');
    assert.equal(r.customer.address.state, ' sp ');
    assert.ok(!JSON.stringify(snap.body).includes('pix-'), 'never the idempotency key');
  });

  test('tenant_id is 422 tenant_from_api_key; provider_id, subaccount_id and unknown fields are 400 (SPEC 4.1, 5.5)', async () => {
    const res = await post(live.key, pixBody({ tenant_id: live.tenantId }));
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'tenant_from_api_key');
    for (const field of ['provider_id', 'subaccount_id', 'colour']) {
      const r = await post(live.key, pixBody({ [field]: 'x' }));
      assert.equal(r.status, 400, field);
      assert.equal(r.body.error.code, 'invalid_json');
    }
  });

  test('Idempotency-Key required and patterned; scope pix:write (SPEC 4 common rules, 5.3)', async () => {
    const missing = await post(live.key, pixBody(), null);
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.code, 'idempotency_key_required');
    assert.equal((await post(live.key, pixBody(), 'bad key!')).status, 400);
    const noScope = await seedTenantAndKey(app.gateway.ctx, { livemode: true, scopes: ['boleto:write'] });
    const res = await post(noScope.key, pixBody());
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'insufficient_scope');
    assert.equal((await post('nope', pixBody())).status, 401);
  });

  test('callback_url must be https (SPEC 4.1)', async () => {
    assert.equal((await post(live.key, pixBody({ callback_url: 'http://example.com/hook' }))).status, 422);
    assert.equal((await post(live.key, pixBody({ callback_url: 'not a url' }))).status, 422);
    const res = await post(live.key, pixBody({ callback_url: 'https://example.com/hook' }));
    assert.equal(res.status, 201);
    assert.equal(res.body.data.callback_url, 'https://example.com/hook');
  });

  test('cost_center_id: own active center links and names; inactive or foreign is 422 invalid_cost_center', async () => {
    const deps = commandDeps(app.gateway.ctx);
    const own = await createCostCenter(
      deps,
      {
        tenantId: live.tenantId,
        name: 'Marketing',
        idempotencyKey: `cc-${++counter}`,
        route: '/v1/cost-centers',
      },
      metadata,
    );
    const foreign = await createCostCenter(
      deps,
      {
        tenantId: outsider.tenantId,
        name: 'Other',
        idempotencyKey: `cc-${++counter}`,
        route: '/v1/cost-centers',
      },
      metadata,
    );
    const ok = await post(live.key, pixBody({ cost_center_id: own.record.id }));
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.data.cost_center_id, own.record.id);
    assert.equal(ok.body.data.cost_center_name, 'Marketing');
    const bad = await post(live.key, pixBody({ cost_center_id: foreign.record.id }));
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.code, 'invalid_cost_center');
    await updateCostCenter(
      deps,
      { costCenterId: own.record.id, keyTenantId: live.tenantId, active: false },
      metadata,
    );
    const inactive = await post(live.key, pixBody({ cost_center_id: own.record.id }));
    assert.equal(inactive.body.error.code, 'invalid_cost_center');
  });

  test('routing: a tenant rule with max_amount caps the charge (422 amount_limit_exceeded), for live and test keys alike (SPEC 1, 2.8; issue 12)', async () => {
    const capped = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
    const cappedTest = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
    for (const tenantId of [capped.tenantId, cappedTest.tenantId]) {
      await createRoutingRule(
        providerDeps(app.gateway.ctx),
        {
          method: 'pix',
          tenantId,
          providerId: SIMULATOR_PROVIDER_ID,
          priority: 1,
          maxAmount: 1000,
          enabled: true,
        },
        metadata,
      );
    }
    const over = await post(capped.key, pixBody({ amount: 1001 }));
    assert.equal(over.status, 422, over.text);
    assert.equal(over.body.error.code, 'amount_limit_exceeded');
    assert.equal((await post(capped.key, pixBody({ amount: 1000 }))).status, 201);
    // SPEC 1: a test key gets the same validation; only the provider is replaced by the simulator.
    const testOver = await post(cappedTest.key, pixBody({ amount: 1001 }));
    assert.equal(testOver.status, 422, testOver.text);
    assert.equal(testOver.body.error.code, 'amount_limit_exceeded');
    const testOk = await post(cappedTest.key, pixBody({ amount: 1000 }));
    assert.equal(testOk.status, 201, testOk.text);
    assert.equal(testOk.body.data.simulated, true);
    assert.equal(testOk.body.data.livemode, false);
  });
});

describe('GET /v1/transactions/{id} and /request (SPEC 4.4, 4.5)', () => {
  let parentTxn: string;
  let childTxn: string;
  let testTxn: string;
  beforeAll(async () => {
    parentTxn = (await post(live.key, pixBody())).body.data.id;
    childTxn = (await post(child.key, pixBody())).body.data.id;
    testTxn = (await post(test_.key, pixBody())).body.data.id;
  });
  const get = (key: string, path: string) => app.request('GET', path, { headers: { 'x-api-key': key } });

  test('own transaction: 200 with the SPEC 2.2 fields', async () => {
    const res = await get(live.key, `/v1/transactions/${parentTxn}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.id, parentTxn);
    assert.equal(res.body.data.status, 'pending');
    assert.equal(res.body.data.cost_center_name, null);
    assert.equal(res.body.data.retained_amount, 0);
  });

  test("a parent reads a child's transaction and its request; a child cannot read the parent's", async () => {
    assert.equal((await get(live.key, `/v1/transactions/${childTxn}`)).status, 200);
    assert.equal((await get(live.key, `/v1/transactions/${childTxn}/request`)).status, 200);
    const up = await get(child.key, `/v1/transactions/${parentTxn}`);
    assert.equal(up.status, 404);
    assert.equal(up.body.error.code, 'not_found');
    assert.equal((await get(child.key, `/v1/transactions/${parentTxn}/request`)).status, 404);
  });

  test('another tree, the other mode and a missing id are 404', async () => {
    assert.equal((await get(outsider.key, `/v1/transactions/${parentTxn}`)).status, 404);
    assert.equal((await get(outsider.key, `/v1/transactions/${parentTxn}/request`)).status, 404);
    assert.equal((await get(live.key, `/v1/transactions/${testTxn}`)).status, 404);
    assert.equal((await get(test_.key, `/v1/transactions/${testTxn}`)).status, 200);
    assert.equal((await get(live.key, '/v1/transactions/txn_missing')).status, 404);
  });

  test('transactions:read is required (SPEC 5.3)', async () => {
    const writer = await seedTenantAndKey(app.gateway.ctx, { livemode: true, scopes: ['pix:write'] });
    const res = await get(writer.key, `/v1/transactions/${parentTxn}`);
    assert.equal(res.status, 403);
  });
});
