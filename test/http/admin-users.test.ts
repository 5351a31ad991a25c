import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { auditProjection } from '../../src/commands/index.ts';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  adminClient,
  assertError,
  bearer,
  idem,
  logIn,
  PASSWORD,
  startAdminApp,
} from '../support/admin.ts';
import type { TestApp } from '../support/http.ts';

describe('admin users over HTTP (SPEC 2.7, 5.6, 5.7, 7)', () => {
  let app: TestApp;
  let root: string;
  let rootId: string;
  let admin: ReturnType<typeof adminClient>;
  let typeId: string;

  beforeAll(async () => {
    app = await startAdminApp();
    root = await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD);
    admin = adminClient(app, root);
    typeId = await admin.type();
    const row = await app.db.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', ADMIN_EMAIL)
      .executeTakeFirstOrThrow();
    rootId = row.id;
  });
  afterAll(() => app.close());

  const post = (path: string, json?: unknown, headers: Record<string, string> = {}, token = root) =>
    app.request('POST', path, { headers: { ...bearer(token), ...headers }, json });
  const get = (path: string, token = root) => app.request('GET', path, { headers: bearer(token) });
  const login = (email: string, password = PASSWORD) =>
    app.request('POST', '/admin/sessions', { json: { email, password } });

  test('SPEC 2.7: a user is created with its role and tenant; responses never include the password hash', async () => {
    const tenant = await admin.tenant(typeId);
    const email = `New.User-${randomUUID()}@Example.com`;
    const res = await post(
      '/admin/users',
      { email, password: PASSWORD, role: 'viewer', tenant_id: tenant },
      idem(),
    );
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body.data).sort(), ['email', 'id', 'role', 'status', 'tenant_id']);
    assert.equal(res.body.data.email, email.toLowerCase());
    assert.equal(res.body.data.status, 'active');
    assert.ok(!res.text.includes('$2'), 'no bcrypt hash in the body');
    const list = await get('/admin/users?limit=100');
    assert.ok(!list.text.includes('password'), 'no hash in lists');
    assert.equal((await login(email)).status, 201);
  });

  test('SPEC 7: e-mails are unique (409 conflict); repeating the same request answers the same user (Idempotency-Replayed)', async () => {
    const tenant = await admin.tenant(typeId);
    const body = {
      email: `dup-${randomUUID()}@example.com`,
      password: PASSWORD,
      role: 'viewer',
      tenant_id: tenant,
    };
    const first = await post('/admin/users', body, idem());
    assert.equal(first.status, 201);
    const again = await post('/admin/users', body, idem());
    assert.equal(again.status, 200);
    assert.equal(again.body.data.id, first.body.data.id);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assertError(
      await post('/admin/users', { ...body, email: body.email.toUpperCase(), role: 'tenant_admin' }, idem()),
      409,
      'conflict',
    );
    assertError(
      await post('/admin/users', { ...body, password: 'another long password' }, idem()),
      409,
      'conflict',
    );
  });

  test('SPEC 7: invalid users are 422 validation_error, unknown fields 400, a missing Idempotency-Key 400', async () => {
    const tenant = await admin.tenant(typeId);
    const ok = {
      email: `v-${randomUUID()}@example.com`,
      password: PASSWORD,
      role: 'viewer',
      tenant_id: tenant,
    };
    assertError(await post('/admin/users', ok), 400, 'idempotency_key_required');
    assertError(await post('/admin/users', { ...ok, tenant_id: null }, idem()), 422, 'validation_error');
    assertError(
      await post('/admin/users', { ...ok, tenant_id: 'ten_missing' }, idem()),
      422,
      'validation_error',
    );
    assertError(await post('/admin/users', { ...ok, password: 'short' }, idem()), 422, 'validation_error');
    assertError(
      await post('/admin/users', { ...ok, password: 'é'.repeat(37) }, idem()),
      422,
      'validation_error',
    );
    assertError(
      await post('/admin/users', { ...ok, email: 'not an e-mail' }, idem()),
      422,
      'validation_error',
    );
    assertError(await post('/admin/users', { ...ok, role: 'owner' }, idem()), 422, 'validation_error');
    assertError(await post('/admin/users', { ...ok, status: 'active' }, idem()), 400, 'invalid_json');
    assertError(await post('/admin/users', { ...ok, password_hash: 'x' }, idem()), 400, 'invalid_json');
  });

  test('SPEC 5.7 "Tenants, types, users": only a super_admin lists users (tenant_admin and viewer 403), paged', async () => {
    const mine = await admin.tenant(typeId);
    const child = await admin.tenant(typeId, mine);
    const other = await admin.tenant(typeId);
    const me = await admin.user('tenant_admin', mine);
    const childUser = await admin.user('viewer', child);
    const otherUser = await admin.user('viewer', other);

    // Issue 28 item 5: the table's "no" holds for their own tree too.
    for (const email of [me.email, childUser.email]) {
      assertError(await get('/admin/users?limit=100', await logIn(app, email)), 403, 'forbidden');
    }

    const all = await get('/admin/users?limit=500');
    assert.equal(all.body.meta.limit, 100);
    const ids = all.body.data.map((u: { id: string }) => u.id);
    for (const id of [rootId, me.id, childUser.id, otherUser.id]) assert.ok(ids.includes(id));
    const page = await get('/admin/users?limit=1&offset=1');
    assert.deepEqual(page.body.meta, { limit: 1, offset: 1, count: 1 });
    assert.equal(page.body.data[0].id, ids[1]);
    assertError(await get('/admin/users?offset=-5'), 422, 'validation_error');
  });

  test('SPEC 5.6: suspending a user revokes their sessions and refuses login; reactivation allows login, old sessions stay revoked', async () => {
    const tenant = await admin.tenant(typeId);
    const u = await admin.user('tenant_admin', tenant);
    const token = await logIn(app, u.email);
    const suspended = await post(`/admin/users/${u.id}/suspend`);
    assert.equal(suspended.status, 200, suspended.text);
    assert.equal(suspended.body.data.status, 'suspended');
    assert.equal((await post(`/admin/users/${u.id}/suspend`)).status, 200, 'repeating is a no-op');
    assertError(await get('/admin/audit?limit=1', token), 401, 'unauthorized');
    assertError(await login(u.email), 401, 'invalid_credentials');

    const reactivated = await post(`/admin/users/${u.id}/reactivate`);
    assert.equal(reactivated.status, 200);
    assert.equal(reactivated.body.data.status, 'active');
    assertError(await get('/admin/audit?limit=1', token), 401, 'unauthorized');
    // SPEC 5.7: a tenant_admin's session probes with a read its role has (users are super_admin only).
    assert.equal((await get('/admin/audit?limit=1', await logIn(app, u.email))).status, 200);

    assertError(await post('/admin/users/usr_missing/suspend'), 404, 'not_found');
    assertError(await post('/admin/users/usr_missing/reactivate'), 404, 'not_found');
  });

  test('SPEC 7 cannot_suspend_self: a super_admin cannot suspend their own user', async () => {
    assertError(await post(`/admin/users/${rootId}/suspend`), 409, 'cannot_suspend_self');
    assert.equal((await get('/admin/users')).status, 200, 'still logged in');
  });

  test('SPEC 5.6: a user changes their own password; every session of theirs ends; the old password stops working', async () => {
    const tenant = await admin.tenant(typeId);
    for (const role of ['viewer', 'tenant_admin']) {
      const u = await admin.user(role, tenant);
      const token = await logIn(app, u.email);
      const other = await logIn(app, u.email);
      const newPassword = `new password ${randomUUID()}`;
      const res = await post(
        `/admin/users/${u.id}/password`,
        { password: newPassword, current_password: PASSWORD },
        {},
        token,
      );
      assert.equal(res.status, 204, res.text);
      assertError(await get('/admin/tenants', token), 401, 'unauthorized');
      assertError(await get('/admin/tenants', other), 401, 'unauthorized');
      assertError(await login(u.email), 401, 'invalid_credentials');
      assert.equal((await login(u.email, newPassword)).status, 201);
    }
  });

  test("SPEC 5.7: a super_admin changes anyone's password; others get 403 inside their tree and 404 outside", async () => {
    const mine = await admin.tenant(typeId);
    const other = await admin.tenant(typeId);
    const tenantAdmin = await admin.user('tenant_admin', mine);
    const colleague = await admin.user('viewer', mine);
    const stranger = await admin.user('viewer', other);
    const token = await logIn(app, tenantAdmin.email);

    assertError(
      await post(`/admin/users/${colleague.id}/password`, { password: PASSWORD }, {}, token),
      403,
      'forbidden',
    );
    assertError(
      await post(`/admin/users/${stranger.id}/password`, { password: PASSWORD }, {}, token),
      404,
      'not_found',
    );
    assertError(
      await post(`/admin/users/${rootId}/password`, { password: PASSWORD }, {}, token),
      404,
      'not_found',
    );
    assertError(
      await post('/admin/users/usr_missing/password', { password: PASSWORD }, {}, token),
      404,
      'not_found',
    );

    const changed = await post(`/admin/users/${colleague.id}/password`, { password: 'set by the admin 1' });
    assert.equal(changed.status, 204);
    assert.equal((await login(colleague.email, 'set by the admin 1')).status, 201);
    assertError(await post('/admin/users/usr_missing/password', { password: PASSWORD }), 404, 'not_found');
    assertError(
      await post(`/admin/users/${stranger.id}/password`, { password: 'short' }),
      422,
      'validation_error',
    );
    assertError(
      await post(`/admin/users/${stranger.id}/password`, { password: PASSWORD, old: 'x' }),
      400,
      'invalid_json',
    );

    // A suspended user's password cannot change (the state table refuses it).
    assert.equal((await post(`/admin/users/${stranger.id}/suspend`)).status, 200);
    assertError(await post(`/admin/users/${stranger.id}/password`, { password: PASSWORD }), 409, 'conflict');
  });

  /** The audit entries of one user's stream with this action, brought up to date as the worker would. */
  async function audited(action: string, userId: string) {
    await app.gateway.runner.catchUp(auditProjection);
    const res = await get(`/admin/audit?action=${action}&limit=100`);
    assert.equal(res.status, 200, res.text);
    const entries = res.body.data as {
      action: string;
      actor: string;
      target_id: string;
      request_id: string;
    }[];
    return entries.filter((e) => e.target_id === userId);
  }

  test('issue 23 item 2.4 (OWASP ASVS V2.1.6): changing your own password needs your current password', async () => {
    const tenant = await admin.tenant(typeId);
    const u = await admin.user('tenant_admin', tenant);
    const token = await logIn(app, u.email);
    const stolen = `stolen-session takeover ${randomUUID()}`;

    // A session alone is not enough: no current password, 422 naming the field; nothing changes.
    const missing = await post(`/admin/users/${u.id}/password`, { password: stolen }, {}, token);
    assertError(missing, 422, 'validation_error');
    assert.equal(missing.body.error.param, 'current_password');

    // A wrong current password: 422 naming the field, audited, nothing changes.
    const wrong = await post(
      `/admin/users/${u.id}/password`,
      { password: stolen, current_password: 'not my password at all' },
      {},
      token,
    );
    assertError(wrong, 422, 'validation_error');
    assert.equal(wrong.body.error.param, 'current_password');
    assert.ok(!wrong.text.includes('not my password at all'), 'the guess is never echoed');
    const [refused, ...more] = await audited('user.password_change_refused', u.id);
    assert.ok(refused, 'the refused attempt is in the audit log');
    assert.equal(more.length, 0);
    assert.equal(refused.action, 'user.password_change_refused');
    assert.equal(refused.request_id, wrong.headers.get('x-request-id'));
    assert.equal(refused.actor, `user:${u.id}`);
    assert.ok(!JSON.stringify(refused).includes('not my password at all'));
    // The session and the password are untouched (the audit log: a read every panel role has, SPEC 5.7).
    assert.equal((await get('/admin/audit?limit=1', token)).status, 200);
    assertError(await login(u.email, stolen), 401, 'invalid_credentials');
    assert.equal((await login(u.email)).status, 201);
    assert.deepEqual(await audited('user.password_changed', u.id), []);

    // The right current password changes it (audited as user.password_changed, by the user).
    const fresh = `the owner's new password ${randomUUID()}`;
    const ok = await post(
      `/admin/users/${u.id}/password`,
      { password: fresh, current_password: PASSWORD },
      {},
      token,
    );
    assert.equal(ok.status, 204, ok.text);
    const [changed] = await audited('user.password_changed', u.id);
    assert.equal(changed?.request_id, ok.headers.get('x-request-id'));
    assert.equal((await login(u.email, fresh)).status, 201);
  });

  test('issue 23 item 2.4: current-password checks are limited to 10 a minute per user (SPEC 8 login rate)', async () => {
    const tenant = await admin.tenant(typeId);
    const u = await admin.user('viewer', tenant);
    const token = await logIn(app, u.email);
    const attempt = (current_password: string) =>
      post(
        `/admin/users/${u.id}/password`,
        { password: `guess ${randomUUID()}`, current_password },
        {},
        token,
      );
    for (let i = 0; i < 10; i++) assertError(await attempt(`guess number ${i}`), 422, 'validation_error');
    // The 11th is refused before the password is compared, even the right one.
    assertError(await attempt(PASSWORD), 429, 'rate_limit_exceeded');
    assert.equal((await audited('user.password_change_refused', u.id)).length, 10);
  });

  test("issue 23 item 2.4: a super_admin resetting another user's password sends no current password", async () => {
    const tenant = await admin.tenant(typeId);
    const u = await admin.user('viewer', tenant);
    const sent = await post(`/admin/users/${u.id}/password`, {
      password: 'reset by the admin 1',
      current_password: PASSWORD,
    });
    assertError(sent, 422, 'validation_error');
    assert.equal(sent.body.error.param, 'current_password');
    assert.equal(
      (await post(`/admin/users/${u.id}/password`, { password: 'reset by the admin 1' })).status,
      204,
    );
    assert.equal((await login(u.email, 'reset by the admin 1')).status, 201);
    // The super_admin's own password follows the self rule too.
    const own = await post(`/admin/users/${rootId}/password`, { password: 'a new root password' });
    assertError(own, 422, 'validation_error');
    assert.equal(own.body.error.param, 'current_password');
  });
});
