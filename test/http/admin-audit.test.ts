import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { auditProjection } from '../../src/commands/index.ts';
import { createUser } from '../../src/commands/users/create/handler.ts';
import { identityDeps } from '../../src/commands/users/identity-deps.ts';
import { sha256Hex } from '../../src/crypto/secrets.ts';
import { seedChildTenant, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

const ADMIN_EMAIL = 'admin@example.com';
const ADMIN_PASSWORD = 'bootstrap admin password';
const USER_PASSWORD = 'a long enough password';
const env = {
  BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL,
  BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
  BCRYPT_COST: '4',
};
const metadata = { actor: 'system:test', request_id: 'req_test' };

interface Entry {
  id: string;
  action: string;
  target_type: string;
  target_id: string;
  tenant_id: string | null;
  request_id: string | null;
  actor: string;
  before: unknown;
  after: unknown;
}

describe('GET /admin/audit (SPEC 4.14, 5.7 "Read logs")', () => {
  let app: TestApp;
  const tokens: Record<'admin' | 'tenantAdmin' | 'viewer', string> = {
    admin: '',
    tenantAdmin: '',
    viewer: '',
  };
  const secrets: string[] = [ADMIN_PASSWORD, USER_PASSWORD];
  let root: string;
  let child: string;
  let other: string;
  let settingsRequestId: string;
  let rootKey: string;

  async function logIn(email: string, password: string): Promise<string> {
    const res = await app.request('POST', '/admin/sessions', { json: { email, password } });
    assert.equal(res.status, 201, res.text);
    secrets.push(res.body.data.token, sha256Hex(res.body.data.token));
    return res.body.data.token;
  }

  beforeAll(async () => {
    app = await startTestApp(env);
    const ctx = app.gateway.ctx;
    const a = await seedTenantAndKey(ctx);
    const b = await seedChildTenant(ctx, a.tenantId);
    const c = await seedTenantAndKey(ctx);
    [root, child, other] = [a.tenantId, b.tenantId, c.tenantId];
    rootKey = a.key;
    for (const k of [a, b, c]) secrets.push(k.key, sha256Hex(k.key));
    const deps = identityDeps(ctx);
    await createUser(
      deps,
      { email: 'ta@example.com', password: USER_PASSWORD, role: 'tenant_admin', tenant_id: root },
      metadata,
    );
    await createUser(
      deps,
      { email: 'viewer@example.com', password: USER_PASSWORD, role: 'viewer', tenant_id: child },
      metadata,
    );
    tokens.admin = await logIn(ADMIN_EMAIL, ADMIN_PASSWORD);
    tokens.tenantAdmin = await logIn('ta@example.com', USER_PASSWORD);
    tokens.viewer = await logIn('viewer@example.com', USER_PASSWORD);
    const patch = await app.request('PATCH', '/admin/settings/payments', {
      headers: { authorization: `Bearer ${tokens.admin}` },
      json: { allow_live_payments: true },
    });
    assert.equal(patch.status, 200, patch.text);
    settingsRequestId = patch.headers.get('x-request-id') ?? '';
    // The audit log is an async projection: bring it up to date as the worker would.
    await app.gateway.runner.catchUp(auditProjection);
  });
  afterAll(() => app.close());

  async function audit(who: keyof typeof tokens, query = '') {
    return app.request('GET', `/admin/audit${query}`, {
      headers: { authorization: `Bearer ${tokens[who]}` },
    });
  }
  async function entries(who: keyof typeof tokens, query = '?limit=100'): Promise<Entry[]> {
    const res = await audit(who, query);
    assert.equal(res.status, 200, res.text);
    return res.body.data;
  }

  test('SPEC 4.14: the settings change is audited with previous/new values, administrator and request id', async () => {
    const [entry] = await entries('admin', '?action=settings.payments.updated');
    assert.ok(entry);
    assert.equal(entry.request_id, settingsRequestId);
    assert.match(entry.actor, /^user:usr_/);
    assert.equal(entry.target_type, 'payment_settings');
    assert.equal(entry.tenant_id, null);
    assert.deepEqual(entry.before, { allow_live_payments: false });
    assert.deepEqual(entry.after, { allow_live_payments: true });
  });

  test('SPEC 5.7: super_admin reads every record', async () => {
    const all = await entries('admin');
    const tenants = new Set(all.map((e) => e.tenant_id));
    for (const t of [root, child, other, null]) assert.ok(tenants.has(t), `records of ${t}`);
    assert.ok(all.some((e) => e.action === 'api_key.created'));
    assert.ok(all.some((e) => e.action === 'session.created'));
  });

  test('SPEC 5.7: a tenant_admin reads its own tree only; platform records stay hidden', async () => {
    const seen = await entries('tenantAdmin');
    assert.ok(seen.length > 0);
    assert.ok(seen.some((e) => e.tenant_id === root));
    assert.ok(seen.some((e) => e.tenant_id === child));
    for (const e of seen) assert.ok(e.tenant_id === root || e.tenant_id === child, JSON.stringify(e));
  });

  test('SPEC 5.7: a viewer reads its own tree only', async () => {
    const seen = await entries('viewer');
    assert.ok(seen.length > 0);
    for (const e of seen) assert.equal(e.tenant_id, child);
    // Its own login is there: the session record inherits the user's tenant.
    assert.ok(seen.some((e) => e.action === 'session.created'));
  });

  test('SPEC 5.7: filters by action, target_id and tenant_id', async () => {
    const keys = await entries('admin', `?action=api_key.created&tenant_id=${child}`);
    assert.equal(keys.length, 1);
    assert.equal(keys[0]?.tenant_id, child);
    const byTarget = await entries('admin', `?target_id=${child}`);
    assert.ok(byTarget.length > 0);
    for (const e of byTarget) assert.equal(e.target_id, child);
    const childOnly = await entries('tenantAdmin', `?tenant_id=${child}`);
    for (const e of childOnly) assert.equal(e.tenant_id, child);
  });

  test('SPEC 5.7, 7: a tenant_id outside the tree is 404 not_found', async () => {
    for (const [who, tenant] of [
      ['tenantAdmin', other],
      ['viewer', root],
      ['admin', 'ten_missing'],
    ] as const) {
      const res = await audit(who, `?tenant_id=${tenant}`);
      assert.equal(res.status, 404, `${who}: ${res.text}`);
      assert.equal(res.body.error.code, 'not_found');
    }
    // A target of another tree is simply not there.
    assert.deepEqual(await entries('tenantAdmin', `?target_id=${other}`), []);
  });

  test('SPEC 2.1, 4.3: limit and offset page newest first; meta.count is the size of the page; limit is clamped to 100', async () => {
    const all = await entries('admin');
    const first = await audit('admin', '?limit=2');
    const second = await audit('admin', '?limit=2&offset=2');
    assert.deepEqual(first.body.meta, { limit: 2, offset: 0, count: 2 });
    const clamped = await audit('admin', '?limit=101');
    assert.equal(clamped.body.meta.limit, 100);
    assert.deepEqual(
      [...first.body.data, ...second.body.data].map((e: Entry) => e.id),
      all.slice(0, 4).map((e) => e.id),
    );
    assert.equal(all[0]?.action, 'settings.payments.updated', 'newest first');
  });

  test('SPEC 7: invalid query is 422 validation_error; no session is 401 unauthorized', async () => {
    for (const q of ['?limit=0', '?limit=abc', '?offset=-1', '?unknown=1']) {
      const res = await audit('admin', q);
      assert.equal(res.status, 422, `${q}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_error');
    }
    const res = await app.request('GET', '/admin/audit');
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'unauthorized');
  });

  test('SPEC 5.7 "Read logs: public key no" (issue 28 item 5): an API key is 401 unauthorized, as header or Bearer', async () => {
    const keyHeaders: Record<string, string>[] = [
      { 'x-api-key': rootKey },
      { authorization: `Bearer ${rootKey}` },
    ];
    for (const headers of keyHeaders) {
      const res = await app.request('GET', '/admin/audit', { headers });
      assert.equal(res.status, 401, res.text);
      assert.equal(res.body.error.code, 'unauthorized');
    }
  });

  test('SPEC 5.6: no password, token, hash or key reaches the audit answers', async () => {
    const res = await audit('admin', '?limit=100');
    for (const secret of secrets) assert.ok(!res.text.includes(secret), 'a secret reached GET /admin/audit');
    assert.doesNotMatch(res.text, /password_hash|token_sha256|secret_sha256|\$2[aby]\$/);
  });
});
