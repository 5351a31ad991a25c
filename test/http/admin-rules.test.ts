import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { resolveProviderFor } from '../../src/routing/resolve-provider.ts';
import { roleTokens } from '../support/admin.ts';
import { seedChildTenant, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

const ADMIN = { email: 'admin@example.com', password: 'bootstrap admin password' };
const env = {
  BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
  BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
  BCRYPT_COST: '4',
};
const _metadata = { actor: 'system:test', request_id: 'req_test' };

describe('admin routing rules over HTTP (SPEC 2.7, 2.8, 4.14, 5.7, 7)', () => {
  let app: TestApp;
  let as: Awaited<ReturnType<typeof roleTokens>>;
  let providerId: string;

  beforeAll(async () => {
    app = await startTestApp(env);
    as = await roleTokens(app, ADMIN);
    const res = await app.request('POST', '/admin/providers', {
      json: { name: 'Acme', kind: 'external', environment: 'production', enabled_methods: ['pix', 'boleto'] },
      headers: as.super_admin,
    });
    assert.equal(res.status, 201, res.text);
    providerId = res.body.data.id;
  });
  afterAll(() => app.close());

  const post = (json: unknown, headers = as.super_admin) =>
    app.request('POST', '/admin/rules', { json, headers });
  const patch = (id: string, json: unknown) =>
    app.request('PATCH', `/admin/rules/${id}`, { json, headers: as.super_admin });

  test('SPEC 4.14: POST /admin/rules with method; defaults: global, priority 100, max_amount 100000000, enabled', async () => {
    const res = await post({ method: 'pix', provider_id: providerId });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(
      { ...res.body.data, id: undefined },
      {
        id: undefined,
        method: 'pix',
        tenant_id: null,
        provider_id: providerId,
        priority: 100,
        max_amount: 100_000_000,
        enabled: true,
      },
    );
    const own = await post({
      method: 'boleto',
      tenant_id: as.tenantId,
      provider_id: providerId,
      priority: 5,
      max_amount: 900,
      enabled: false,
    });
    assert.equal(own.status, 201, own.text);
    assert.equal(own.body.data.tenant_id, as.tenantId);
  });

  test('references: unknown provider or tenant is 404 not_found; bad values 422; unknown fields 400', async () => {
    for (const json of [
      { method: 'pix', provider_id: 'prv_missing' },
      { method: 'pix', provider_id: providerId, tenant_id: 'ten_missing' },
    ]) {
      const res = await post(json);
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.error.code, 'not_found');
    }
    for (const json of [
      { method: 'card', provider_id: providerId },
      { method: 'pix', provider_id: providerId, priority: -1 },
      { method: 'pix', provider_id: providerId, max_amount: 0 },
      { method: 'pix', provider_id: providerId, max_amount: 100_000_001 },
      { provider_id: providerId },
    ]) {
      const res = await post(json);
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body.error.code, 'validation_error');
    }
    const unknown = await post({ method: 'pix', provider_id: providerId, subaccount_id: 'sac_1' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.code, 'invalid_json');
    const fraction = await app.request('POST', '/admin/rules', {
      raw: `{"method":"pix","provider_id":"${providerId}","max_amount":10.5}`,
      headers: as.super_admin,
    });
    assert.equal(fraction.status, 400, fraction.text);
    assert.equal(fraction.body.error.code, 'invalid_json');
  });

  test('SPEC 2.7: PATCH changes priority, max_amount and enabled only; anything else is 400 invalid_json', async () => {
    const { body } = await post({ method: 'pix', provider_id: providerId, priority: 50 });
    const id = body.data.id;
    const res = await patch(id, { priority: 7, max_amount: 1234, enabled: false });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      [res.body.data.priority, res.body.data.max_amount, res.body.data.enabled],
      [7, 1234, false],
    );
    for (const json of [
      { method: 'boleto' },
      { tenant_id: null },
      { provider_id: providerId },
      { priority: 1, x: 1 },
    ]) {
      const r = await patch(id, json);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.error.code, 'invalid_json');
    }
    const bad = await patch(id, { max_amount: 0 });
    assert.equal(bad.body.error.code, 'validation_error');
    const missing = await patch('rul_missing', { enabled: true });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'not_found');
  });

  test('GET /admin/rules lists oldest first, filtered by method and tenant', async () => {
    const all = await app.request('GET', '/admin/rules?limit=100', { headers: as.super_admin });
    assert.equal(all.status, 200);
    assert.ok(all.body.data.length >= 3);
    const boleto = await app.request('GET', `/admin/rules?method=boleto&tenant_id=${as.tenantId}`, {
      headers: as.super_admin,
    });
    assert.ok(boleto.body.data.length >= 1);
    assert.ok(boleto.body.data.every((r: { method: string }) => r.method === 'boleto'));
  });

  test('SPEC 2.8: routing changes apply to the next charge (inline read models feed the resolver)', async () => {
    const { db } = app.gateway.ctx;
    const parent = await seedTenantAndKey(app.gateway.ctx);
    const child = await seedChildTenant(app.gateway.ctx, parent.tenantId);
    const other = await app.request('POST', '/admin/providers', {
      json: { name: 'Other', kind: 'external', environment: 'production', enabled_methods: ['boleto'] },
      headers: as.super_admin,
    });
    const parentRule = await post({
      method: 'boleto',
      tenant_id: parent.tenantId,
      provider_id: other.body.data.id,
      priority: 900,
      max_amount: 500,
    });
    // Called directly, not behind a request's authentication: settled first in async mode.
    const resolve = async (amount: number) => {
      await app.settle();
      return resolveProviderFor(db, { tenantId: child.tenantId, method: 'boleto', amount });
    };
    assert.equal((await resolve(10)).ruleId, parentRule.body.data.id, "the parent's rule beats global ones");
    await assert.rejects(resolve(501), { code: 'amount_limit_exceeded' });
    const disabled = await app.request('PATCH', `/admin/providers/${other.body.data.id}`, {
      json: { enabled_methods: [] },
      headers: as.super_admin,
    });
    assert.equal(disabled.status, 200);
    // No other boleto rule on the chain or global: the method is what blocks (SPEC 7).
    await assert.rejects(resolve(10), { code: 'provider_method_disabled' });
    const global = await post({ method: 'boleto', provider_id: providerId, priority: 999 });
    assert.equal(global.status, 201);
    const fallback = await resolve(501);
    assert.notEqual(fallback.ruleId, parentRule.body.data.id, 'a global rule takes over');
    assert.equal(fallback.level, 'global');
  });

  test('SPEC 5.7 roles: super_admin only; tenant_admin and viewer 403 forbidden; no session 401', async () => {
    const { body } = await post({ method: 'pix', provider_id: providerId });
    const calls: [string, string, unknown?][] = [
      ['POST', '/admin/rules', { method: 'pix', provider_id: providerId }],
      ['GET', '/admin/rules'],
      ['PATCH', `/admin/rules/${body.data.id}`, { enabled: false }],
    ];
    for (const [method, path, json] of calls) {
      for (const role of ['tenant_admin', 'viewer'] as const) {
        const res = await app.request(method, path, { json, headers: as[role] });
        assert.equal(res.status, 403, `${role} ${method} ${path}`);
        assert.equal(res.body.error.code, 'forbidden');
      }
      const anon = await app.request(method, path, { json });
      assert.equal(anon.status, 401);
      assert.equal(anon.body.error.code, 'unauthorized');
    }
  });
});
