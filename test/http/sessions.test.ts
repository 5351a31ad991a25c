import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { z } from 'zod';
import type { RateLimiter } from '../../src/commands/context.ts';
import { reactivateTenant } from '../../src/commands/tenants/reactivate/handler.ts';
import { suspendTenant } from '../../src/commands/tenants/suspend/handler.ts';
import { changePassword } from '../../src/commands/users/change-password/handler.ts';
import { createUser } from '../../src/commands/users/create/handler.ts';
import { identityDeps } from '../../src/commands/users/identity-deps.ts';
import { reactivateUser } from '../../src/commands/users/reactivate/handler.ts';
import { suspendUser } from '../../src/commands/users/suspend/handler.ts';
import { dataEnvelope } from '../../src/contract/envelopes.ts';
import { sha256Hex } from '../../src/crypto/secrets.ts';
import { sessionPrincipal } from '../../src/http/auth.ts';
import { commandDeps, seedChildTenant, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

const ADMIN_EMAIL = 'admin@example.com';
const ADMIN_PASSWORD = 'bootstrap admin password';
const env = {
  BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL,
  BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
  BCRYPT_COST: '4',
};
const HOUR = 60 * 60 * 1000;
const metadata = { actor: 'system:test', request_id: 'req_test' };

const whoami = z.object({ user_id: z.string(), role: z.string(), tenant_id: z.string().nullable() });

describe('panel sessions over HTTP (SPEC 5.6, 5.9, 7, 8)', () => {
  let app: TestApp;
  /** The test clock: ctx.now is what the login command and the session authenticator both read. */
  const clock = { offsetMs: 0 };
  /** Addresses the login route charged; the limit itself is checked in its own app below. */
  const loginCharges: string[] = [];
  /** Every password and token this suite used, for the log check at the end. */
  const secrets: string[] = [ADMIN_PASSWORD];

  beforeAll(async () => {
    app = await startTestApp(env, (gw) => {
      gw.ctx.now = () => new Date(Date.now() + clock.offsetMs);
      const real = gw.ctx.rateLimiter;
      const recording: RateLimiter = {
        async consume(bucket, actor) {
          if (bucket === 'login') loginCharges.push(actor);
          else await real.consume(bucket, actor);
        },
        admit: (actor) => real.admit(actor),
        ping: () => real.ping(),
        close: () => real.close(),
      };
      gw.ctx.rateLimiter = recording;
      gw.http.get(
        '/test/whoami',
        {
          config: { access: { auth: 'session' } },
          schema: { response: { 200: dataEnvelope(whoami) } },
        },
        async (request) => {
          const p = sessionPrincipal(request);
          return { data: { user_id: p.userId, role: p.role, tenant_id: p.tenantId } };
        },
      );
    });
  });
  afterAll(() => app.close());

  const deps = () => identityDeps(app.gateway.ctx);

  async function logIn(email: string, password: string, headers: Record<string, string> = {}) {
    const res = await app.request('POST', '/admin/sessions', { json: { email, password }, headers });
    if (res.status === 201) secrets.push(res.body.data.token, sha256Hex(res.body.data.token));
    return res;
  }
  async function tokenFor(email: string, password: string): Promise<string> {
    const res = await logIn(email, password);
    assert.equal(res.status, 201, res.text);
    return res.body.data.token;
  }
  const me = (token: string) =>
    app.request('GET', '/test/whoami', { headers: { authorization: `Bearer ${token}` } });
  async function assertRejected(token: string, why: string) {
    const res = await me(token);
    assert.equal(res.status, 401, why);
    assert.equal(res.body.error.code, 'unauthorized', why);
  }
  async function newUser(role: 'tenant_admin' | 'viewer', tenantId: string) {
    const email = `${role}-${Math.random().toString(36).slice(2)}@example.com`;
    const password = `password of ${email}`;
    secrets.push(password);
    const { user } = await createUser(deps(), { email, password, role, tenant_id: tenantId }, metadata);
    return { ...user, password };
  }

  test('SPEC 5.6: login answers 201 { data: { token, expires_at, user } } and the token opens session routes', async () => {
    const before = Date.now();
    const res = await logIn(' Admin@Example.com ', ADMIN_PASSWORD);
    assert.equal(res.status, 201, res.text);
    const { token, expires_at, user } = res.body.data;
    assert.deepEqual(Object.keys(res.body.data).sort(), ['expires_at', 'token', 'user']);
    assert.match(token, /^cls_[A-Za-z0-9_-]{43}$/);
    const ttl = Date.parse(expires_at) - before;
    assert.ok(ttl >= 8 * HOUR - 1000 && ttl <= 8 * HOUR + 5000, `SPEC 8: 8 hours, got ${ttl} ms`);
    assert.deepEqual(Object.keys(user).sort(), ['email', 'id', 'role', 'tenant_id']);
    assert.equal(user.email, ADMIN_EMAIL);
    assert.equal(user.role, 'super_admin');
    assert.equal(user.tenant_id, null);
    assert.match(user.id, /^usr_/);
    const ok = await me(token);
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body.data, { user_id: user.id, role: 'super_admin', tenant_id: null });
    // Only the digest is stored.
    const row = await app.gateway.ctx.db
      .selectFrom('sessions')
      .selectAll()
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.token_sha256, sha256Hex(token));
  });

  test('SPEC 5.9/8: login is charged to the direct connection address, never X-Forwarded-For', async () => {
    loginCharges.length = 0;
    await logIn(ADMIN_EMAIL, 'wrong password!!', { 'x-forwarded-for': '203.0.113.9' });
    await app.request('POST', '/admin/sessions', {
      raw: '{"email":',
      headers: { 'x-forwarded-for': '198.51.100.1' },
    });
    assert.deepEqual(loginCharges, ['127.0.0.1', '127.0.0.1'], 'charged first, even for an unreadable body');
  });

  test('SPEC 5.9, 7: a wrong password and an unknown e-mail are the same 401 invalid_credentials', async () => {
    const wrong = await logIn(ADMIN_EMAIL, 'not the password');
    const unknown = await logIn('nobody@example.com', ADMIN_PASSWORD);
    for (const res of [wrong, unknown]) {
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'invalid_credentials');
    }
    assert.equal(wrong.body.error.message, unknown.body.error.message);
  });

  test('SPEC 4 common rules, 7: an extra field is 400 invalid_json; a missing field is 422', async () => {
    const extra = await app.request('POST', '/admin/sessions', {
      json: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD, remember_me: true },
    });
    assert.equal(extra.status, 400);
    assert.equal(extra.body.error.code, 'invalid_json');
    const missing = await app.request('POST', '/admin/sessions', { json: { email: ADMIN_EMAIL } });
    assert.equal(missing.status, 422);
    assert.equal(missing.body.error.code, 'validation_error');
    assert.equal(missing.body.error.param, 'password');
  });

  test('SPEC 5.6: logout answers 204 without a body and revokes the token at once', async () => {
    const token = await tokenFor(ADMIN_EMAIL, ADMIN_PASSWORD);
    const other = await tokenFor(ADMIN_EMAIL, ADMIN_PASSWORD);
    const out = await app.request('DELETE', '/admin/sessions/current', {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(out.status, 204);
    assert.equal(out.text, '');
    await assertRejected(token, 'after logout');
    const again = await app.request('DELETE', '/admin/sessions/current', {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(again.status, 401);
    assert.equal((await me(other)).status, 200, 'other sessions of the user stay valid');
    const none = await app.request('DELETE', '/admin/sessions/current');
    assert.equal(none.status, 401);
  });

  test('SPEC 5.6: a password change invalidates every session of the user', async () => {
    const { tenantId } = await seedTenantAndKey(app.gateway.ctx);
    const u = await newUser('tenant_admin', tenantId);
    const t1 = await tokenFor(u.email, u.password);
    const t2 = await tokenFor(u.email, u.password);
    const password = `${u.password} v2`;
    secrets.push(password);
    await changePassword(deps(), u.id, password, metadata);
    await assertRejected(t1, 'after password change');
    await assertRejected(t2, 'after password change');
    assert.equal((await logIn(u.email, u.password)).status, 401, 'the old password is gone');
    assert.equal((await me(await tokenFor(u.email, password))).status, 200);
  });

  test('SPEC 5.6: suspending the user invalidates its sessions; reactivation restores none of them', async () => {
    const { tenantId } = await seedTenantAndKey(app.gateway.ctx);
    const u = await newUser('viewer', tenantId);
    const token = await tokenFor(u.email, u.password);
    await suspendUser(deps(), u.id, metadata);
    await assertRejected(token, 'after user suspension');
    const refused = await logIn(u.email, u.password);
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, 'invalid_credentials');
    await reactivateUser(deps(), u.id, metadata);
    await assertRejected(token, 'after reactivation');
    assert.equal((await me(await tokenFor(u.email, u.password))).status, 200);
  });

  test('SPEC 5.6, 8: a session expires 8 hours after login', async () => {
    const token = await tokenFor(ADMIN_EMAIL, ADMIN_PASSWORD);
    try {
      clock.offsetMs = 8 * HOUR - 60_000;
      assert.equal((await me(token)).status, 200, 'one minute before expiry');
      clock.offsetMs = 8 * HOUR;
      await assertRejected(token, 'after 8 hours');
      assert.equal((await me(await tokenFor(ADMIN_EMAIL, ADMIN_PASSWORD))).status, 200, 'a new login works');
    } finally {
      clock.offsetMs = 0;
    }
  });

  test('SPEC 5.6: suspending a tenant revokes its sessions for good', async () => {
    const { tenantId } = await seedTenantAndKey(app.gateway.ctx);
    const u = await newUser('tenant_admin', tenantId);
    const token = await tokenFor(u.email, u.password);
    const tenants = commandDeps(app.gateway.ctx);
    await suspendTenant(tenants, tenantId, metadata);
    await assertRejected(token, 'after tenant suspension');
    const blocked = await logIn(u.email, u.password);
    assert.equal(blocked.status, 403, 'SPEC 5.5: a suspended tenant blocks credentials');
    assert.equal(blocked.body.error.code, 'tenant_suspended');
    await reactivateTenant(tenants, tenantId, metadata);
    await assertRejected(token, 'SPEC 5.6: reactivation does not restore revoked sessions');
    assert.equal((await me(await tokenFor(u.email, u.password))).status, 200);
  });

  test('SPEC 5.6: suspending an ancestor revokes the sessions of the whole subtree, and only of it', async () => {
    const root = await seedTenantAndKey(app.gateway.ctx);
    const child = await seedChildTenant(app.gateway.ctx, root.tenantId);
    const grandchild = await seedChildTenant(app.gateway.ctx, child.tenantId);
    const sibling = await seedTenantAndKey(app.gateway.ctx);
    const inChild = await newUser('tenant_admin', child.tenantId);
    const inGrandchild = await newUser('viewer', grandchild.tenantId);
    const inRoot = await newUser('viewer', root.tenantId);
    const elsewhere = await newUser('viewer', sibling.tenantId);
    const tokens = {
      child: await tokenFor(inChild.email, inChild.password),
      grandchild: await tokenFor(inGrandchild.email, inGrandchild.password),
      root: await tokenFor(inRoot.email, inRoot.password),
      elsewhere: await tokenFor(elsewhere.email, elsewhere.password),
    };
    const tenants = commandDeps(app.gateway.ctx);
    await suspendTenant(tenants, child.tenantId, metadata);
    await assertRejected(tokens.child, 'the suspended tenant');
    await assertRejected(tokens.grandchild, 'a descendant of the suspended tenant');
    assert.equal((await me(tokens.root)).status, 200, 'the parent is not in the subtree');
    assert.equal((await me(tokens.elsewhere)).status, 200, 'another tree');
    await reactivateTenant(tenants, child.tenantId, metadata);
    await assertRejected(tokens.grandchild, 'reactivation does not restore revoked sessions');
  });

  test('issue 3: after logins and logouts no log line holds a password, a token or a token digest', async () => {
    const token = await tokenFor(ADMIN_EMAIL, ADMIN_PASSWORD);
    await app.request('DELETE', '/admin/sessions/current', { headers: { authorization: `Bearer ${token}` } });
    await logIn(ADMIN_EMAIL, `${ADMIN_PASSWORD}?`);
    assert.ok(app.logs.some((l) => l.includes('bootstrap administrator created')));
    assert.ok(app.logs.length > 10);
    for (const line of app.logs) {
      for (const secret of secrets) assert.ok(!line.includes(secret), `a log line leaks a secret: ${line}`);
    }
  });
});

describe('login rate limit (SPEC 5.9, 8)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(env);
  });
  afterAll(() => app.close());

  test('SPEC 8: the 11th login attempt within a minute from one address is 429 rate_limit_exceeded', async () => {
    for (let i = 0; i < 10; i++) {
      // Each attempt claims another address in X-Forwarded-For; none of them is trusted.
      const headers = { 'x-forwarded-for': `198.51.100.${i}` };
      const res =
        i % 2 === 0
          ? await app.request('POST', '/admin/sessions', {
              json: { email: ADMIN_EMAIL, password: 'wrong password!' },
              headers,
            })
          : await app.request('POST', '/admin/sessions', { raw: '{"email": 1,', headers });
      assert.equal(res.status, i % 2 === 0 ? 401 : 400, `attempt ${i + 1}`);
    }
    const eleventh = await app.request('POST', '/admin/sessions', {
      json: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
      headers: { 'x-forwarded-for': '192.0.2.77' },
    });
    assert.equal(eleventh.status, 429);
    assert.equal(eleventh.body.error.code, 'rate_limit_exceeded');
  });
});
