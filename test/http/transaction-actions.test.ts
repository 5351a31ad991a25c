import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { SCOPES } from '../../src/aggregates/access.ts';
import { issueApiKey } from '../../src/commands/api-keys/issue/handler.ts';
import { createProvider } from '../../src/commands/providers/create/handler.ts';
import { providerDeps } from '../../src/commands/providers/deps.ts';
import { createRoutingRule } from '../../src/commands/routing-rules/create/handler.ts';
import { transactionStream } from '../../src/commands/transactions/shared/stream.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, assertError, roleTokens } from '../support/admin.ts';
import { pixBody } from '../support/charges.ts';
import { commandDeps, driveCharge, type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';
import { noDiagnostics, pixArtifacts } from '../support/transactions.ts';

/** SPEC 3.1, 4.6, 4.7, 5.3, 5.4, 5.7, 7: POST /v1/transactions/{id}/simulate|refresh and the panel simulate. */

const SECRET = 'transaction-actions-document-signing-secret-0123';
const metadata = { actor: 'system:test', request_id: 'req_test' };
let app: TestApp;
let off: TestApp;
let test_: SeededKey;
let live: SeededKey;
let counter = 0;

function createPix(a: TestApp, key: string, overrides: Record<string, unknown> = {}) {
  return a.request('POST', '/v1/pix', {
    headers: { 'x-api-key': key, 'idempotency-key': `act-${++counter}` },
    json: pixBody(overrides),
  });
}

async function pixId(a: TestApp, key: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await createPix(a, key, overrides);
  assert.equal(res.status, 201, res.text);
  return res.body.data.id;
}

function simulate(a: TestApp, key: string, id: string, status: string) {
  return a.request('POST', `/v1/transactions/${id}/simulate`, {
    headers: { 'x-api-key': key },
    json: { status },
  });
}

function refresh(a: TestApp, key: string, id: string) {
  return a.request('POST', `/v1/transactions/${id}/refresh`, { headers: { 'x-api-key': key } });
}

beforeAll(async () => {
  app = await startTestApp({
    BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL,
    BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
    BCRYPT_COST: '4',
    DOCUMENT_SIGNING_SECRET: SECRET,
    ENABLE_SIMULATOR: 'true',
  });
  off = await startTestApp({ DOCUMENT_SIGNING_SECRET: SECRET, ENABLE_SIMULATOR: 'false' });
  test_ = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
  live = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
});
afterAll(async () => {
  await app.close();
  await off.close();
});

describe('POST /v1/transactions/{id}/simulate (SPEC 4.7, 3.1)', () => {
  test('paid: 200 with the paid transaction; the event carries the request metadata', async () => {
    const id = await pixId(app, test_.key);
    const res = await simulate(app, test_.key, id, 'paid');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.id, id);
    assert.equal(res.body.data.status, 'paid');
    assert.equal(res.body.data.paid_with, 'pix');
    assert.ok(res.body.data.paid_at);
    const events = await app.gateway.ctx.store.read(transactionStream(id));
    const paid = events.at(-1);
    assert.equal(paid?.type, 'Transaction.Paid');
    assert.equal(paid?.metadata.actor, `api_key:${test_.keyId}`);
    assert.equal(paid?.metadata.request_id, res.headers.get('x-request-id'));
    assert.equal(paid?.metadata.tenant_id, test_.tenantId);
    assert.equal(paid?.metadata.livemode, false);
  });

  test('expired: 200 expired; a second simulate is 409 simulation_not_allowed (SPEC 7)', async () => {
    const id = await pixId(app, test_.key);
    const res = await simulate(app, test_.key, id, 'expired');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'expired');
    assertError(await simulate(app, test_.key, id, 'paid'), 409, 'simulation_not_allowed');
    assertError(await simulate(app, test_.key, id, 'expired'), 409, 'simulation_not_allowed');
  });

  test('strict body (SPEC 7): an unknown status is 422 validation_error, an extra field 400 invalid_json', async () => {
    const id = await pixId(app, test_.key);
    assertError(await simulate(app, test_.key, id, 'refunded'), 422, 'validation_error');
    const extra = await app.request('POST', `/v1/transactions/${id}/simulate`, {
      headers: { 'x-api-key': test_.key },
      json: { status: 'paid', amount: 1 },
    });
    assertError(extra, 400, 'invalid_json');
  });

  test('"Test key only": a live key is 409 simulation_not_allowed, even on its own simulated charge', async () => {
    const id = await pixId(app, live.key);
    assertError(await simulate(app, live.key, id, 'paid'), 409, 'simulation_not_allowed');
    const row = await app.request('GET', `/v1/transactions/${id}`, { headers: { 'x-api-key': live.key } });
    assert.equal(row.body.data.status, 'pending');
  });

  test('SPEC 5.3: without the method write scope 403 insufficient_scope; without transactions:read too', async () => {
    const id = await pixId(app, test_.key);
    const { key: readOnly } = await issueApiKey(
      commandDeps(app.gateway.ctx),
      {
        tenantId: test_.tenantId,
        livemode: false,
        name: 'read only',
        scopes: ['transactions:read', 'boleto:write'],
        accessProfile: 'standard',
        createdBy: 'system:test',
      },
      metadata,
    );
    assertError(await simulate(app, readOnly, id, 'paid'), 403, 'insufficient_scope');
    assertError(await refresh(app, readOnly, id), 403, 'insufficient_scope');
    const { key: writeOnly } = await issueApiKey(
      commandDeps(app.gateway.ctx),
      {
        tenantId: test_.tenantId,
        livemode: false,
        name: 'write only',
        scopes: ['pix:write'],
        accessProfile: 'standard',
        createdBy: 'system:test',
      },
      metadata,
    );
    assertError(await simulate(app, writeOnly, id, 'paid'), 403, 'insufficient_scope');
    assertError(await refresh(app, writeOnly, id), 403, 'insufficient_scope');
  });

  test('SPEC 5.4: a developer key cannot simulate nor refresh (403 insufficient_scope)', async () => {
    const id = await pixId(app, test_.key);
    const { key } = await issueApiKey(
      commandDeps(app.gateway.ctx),
      {
        tenantId: test_.tenantId,
        livemode: false,
        name: 'developer',
        scopes: SCOPES,
        accessProfile: 'developer',
        createdBy: 'system:test',
      },
      metadata,
    );
    assertError(await simulate(app, key, id, 'paid'), 403, 'insufficient_scope');
    assertError(await refresh(app, key, id), 403, 'insufficient_scope');
  });

  test('SPEC 4.4: another tree or the other mode is 404', async () => {
    const id = await pixId(app, test_.key);
    const other = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
    assertError(await simulate(app, other.key, id, 'paid'), 404, 'not_found');
    assertError(await refresh(app, other.key, id), 404, 'not_found');
    const sameTenantLive = await issueApiKey(
      commandDeps(app.gateway.ctx),
      {
        tenantId: test_.tenantId,
        livemode: true,
        name: 'live',
        scopes: SCOPES,
        accessProfile: 'standard',
        createdBy: 'system:test',
      },
      metadata,
    );
    assertError(await refresh(app, sameTenantLive.key, id), 404, 'not_found');
    assertError(await simulate(app, test_.key, 'txn_missing', 'paid'), 404, 'not_found');
  });

  test('ENABLE_SIMULATOR false: test-key charges are still created (simulated), simulate is 422 simulator_disabled', async () => {
    const key = await seedTenantAndKey(off.gateway.ctx, { livemode: false });
    // A test charge is routed like a live one (SPEC 1, 2.8; issue 12): without the simulator's global rule
    // the tenant needs a rule, here to a production provider the test charge never reaches.
    const deps = providerDeps(off.gateway.ctx);
    const { provider } = await createProvider(
      deps,
      {
        name: 'Production',
        kind: 'external',
        environment: 'production',
        enabledMethods: ['pix'],
        isMarketplace: false,
      },
      metadata,
    );
    await createRoutingRule(
      deps,
      {
        method: 'pix',
        tenantId: key.tenantId,
        providerId: provider.id,
        priority: 1,
        maxAmount: 100_000,
        enabled: true,
      },
      metadata,
    );
    const created = await createPix(off, key.key);
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.data.simulated, true);
    const id = created.body.data.id;
    assertError(await simulate(off, key.key, id, 'paid'), 422, 'simulator_disabled');
    const read = await off.request('GET', `/v1/transactions/${id}`, { headers: { 'x-api-key': key.key } });
    assert.equal(read.body.data.status, 'pending');
  });
});

describe('POST /v1/transactions/{id}/refresh (SPEC 4.6, 3.1)', () => {
  test('a Pix before its deadline: 200 unchanged; after it: expired (source deadline)', async () => {
    const id = await pixId(app, test_.key, { expires_in: 600 });
    const first = await refresh(app, test_.key, id);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.data.status, 'pending');
    const realNow = app.gateway.ctx.now;
    app.gateway.ctx.now = () => new Date(Date.now() + 601_000);
    try {
      const second = await refresh(app, test_.key, id);
      assert.equal(second.status, 200, second.text);
      assert.equal(second.body.data.status, 'expired');
    } finally {
      app.gateway.ctx.now = realNow;
    }
    const events = await app.gateway.ctx.store.read(transactionStream(id));
    const last = events.at(-1);
    assert.equal(last?.type, 'Transaction.Expired');
    assert.deepEqual(last?.data, { transaction_id: id, source: 'deadline' });
    assert.equal(last?.metadata.actor, `api_key:${test_.keyId}`);
    const again = await refresh(app, test_.key, id);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.data.status, 'expired');
    assert.equal((await app.gateway.ctx.store.read(transactionStream(id))).length, events.length);
  });

  test('final states never reopen: a paid Pix past its deadline stays paid (200), nothing appended', async () => {
    const id = await pixId(app, test_.key, { expires_in: 60 });
    assert.equal((await simulate(app, test_.key, id, 'paid')).status, 200);
    const before_ = (await app.gateway.ctx.store.read(transactionStream(id))).length;
    const realNow = app.gateway.ctx.now;
    app.gateway.ctx.now = () => new Date(Date.now() + 3_600_000);
    try {
      const res = await refresh(app, test_.key, id);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.status, 'paid');
    } finally {
      app.gateway.ctx.now = realNow;
    }
    assert.equal((await app.gateway.ctx.store.read(transactionStream(id))).length, before_);
  });

  test('unknown without provider_reference: 409 reconciliation_required with error.transaction_id', async () => {
    const id = `txn_unknown_${++counter}`;
    await driveCharge(app.gateway.ctx, id, 'pix_test', test_.tenantId, [
      { kind: 'record_uncertain', providerReference: null, diagnostics: noDiagnostics },
    ]);
    const res = await refresh(app, test_.key, id);
    assertError(res, 409, 'reconciliation_required');
    assert.equal(res.body.error.transaction_id, id);
    const read = await app.request('GET', `/v1/transactions/${id}`, { headers: { 'x-api-key': test_.key } });
    assert.equal(read.body.data.status, 'unknown');
  });

  test('SPEC 4.6, 5.8: an external production charge with the production control off is 403 live_payments_disabled, state kept', async () => {
    const id = `txn_external_${++counter}`;
    const stream = transactionStream(id);
    await driveCharge(app.gateway.ctx, id, 'pix_live', live.tenantId, [
      { kind: 'record_issued', artifacts: pixArtifacts() },
    ]);
    const before_ = (await app.gateway.ctx.store.read(stream)).length;
    // The query itself is covered against the emulator in external-provider-refresh.test.ts (issue 13).
    const res = await refresh(app, live.key, id);
    assertError(res, 403, 'live_payments_disabled');
    assert.equal((await app.gateway.ctx.store.read(stream)).length, before_);
  });

  test('refresh never creates a charge: an unknown id is 404', async () => {
    assertError(await refresh(app, test_.key, 'txn_does_not_exist'), 404, 'not_found');
    assert.equal((await app.gateway.ctx.store.read(transactionStream('txn_does_not_exist'))).length, 0);
  });
});

describe('POST /admin/transactions/{id}/simulate (SPEC 4.7, 5.7)', () => {
  test('super_admin and tenant_admin in their tree simulate; viewer 403 forbidden; another tree 404', async () => {
    const roles = await roleTokens(app);
    const { key } = await issueApiKey(
      commandDeps(app.gateway.ctx),
      {
        tenantId: roles.tenantId,
        livemode: false,
        name: 'panel test key',
        scopes: SCOPES,
        accessProfile: 'standard',
        createdBy: 'system:test',
      },
      metadata,
    );
    const post = (headers: Record<string, string>, id: string, status: string) =>
      app.request('POST', `/admin/transactions/${id}/simulate`, { headers, json: { status } });

    const a = await pixId(app, key);
    assertError(await post(roles.viewer, a, 'paid'), 403, 'forbidden');
    const byAdmin = await post(roles.tenant_admin, a, 'paid');
    assert.equal(byAdmin.status, 200, byAdmin.text);
    assert.equal(byAdmin.body.data.status, 'paid');
    assertError(await post(roles.super_admin, a, 'expired'), 409, 'simulation_not_allowed');

    const b = await pixId(app, key);
    const bySuper = await post(roles.super_admin, b, 'expired');
    assert.equal(bySuper.status, 200, bySuper.text);
    assert.equal(bySuper.body.data.status, 'expired');

    const outside = await pixId(app, test_.key);
    assertError(await post(roles.tenant_admin, outside, 'paid'), 404, 'not_found');
    assertError(await post(roles.super_admin, 'txn_missing', 'paid'), 404, 'not_found');
    const events = await app.gateway.ctx.store.read(transactionStream(a));
    assert.match(events.at(-1)?.metadata.actor ?? '', /^user:/);
  });
});
