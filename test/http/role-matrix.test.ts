import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
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
import { seedTenantAndKey } from '../support/fixtures.ts';
import type { TestApp } from '../support/http.ts';

type Role = 'super_admin' | 'tenant_admin' | 'viewer';
const ROLES: readonly Role[] = ['super_admin', 'tenant_admin', 'viewer'];

/** One endpoint of the issue: how to call it, and the status each role gets (SPEC 5.7). */
interface Endpoint {
  method: 'GET' | 'POST';
  /** `:target` is a child tenant of the callers' tenant; `:user` a user of that child. */
  path: string;
  /** Built per call: creations need fresh names. */
  body?: (ids: Ids) => unknown;
  creation?: boolean;
  expect: Record<Role, number>;
}

interface Ids {
  type: string;
  tenant: string;
  target: string;
  user: string;
}

const writes = (ok: number) => ({ super_admin: ok, tenant_admin: 403, viewer: 403 });
/** Issue 28 item 5: reads follow the table too (they were open to every role, tree-scoped, before). */
const READ = writes(200);

/** SPEC 5.7 "Tenants, types, users: super_admin yes; tenant_admin no; viewer no": reads and writes. */
const ENDPOINTS: readonly Endpoint[] = [
  {
    method: 'POST',
    path: '/admin/tenant-types',
    creation: true,
    body: () => ({ name: `type ${randomUUID()}`, allows_children: true }),
    expect: writes(201),
  },
  { method: 'GET', path: '/admin/tenant-types', expect: READ },
  {
    method: 'POST',
    path: '/admin/tenants',
    creation: true,
    body: (ids) => ({ name: 'Matrix', type_id: ids.type, parent_id: ids.tenant }),
    expect: writes(201),
  },
  { method: 'GET', path: '/admin/tenants', expect: READ },
  { method: 'GET', path: '/admin/tenants/:target', expect: READ },
  { method: 'POST', path: '/admin/tenants/:target/suspend', expect: writes(200) },
  { method: 'POST', path: '/admin/tenants/:target/reactivate', expect: writes(200) },
  {
    method: 'POST',
    path: '/admin/users',
    creation: true,
    body: (ids) => ({
      email: `m-${randomUUID()}@example.com`,
      password: PASSWORD,
      role: 'viewer',
      tenant_id: ids.tenant,
    }),
    expect: writes(201),
  },
  { method: 'GET', path: '/admin/users', expect: READ },
  { method: 'POST', path: '/admin/users/:user/suspend', expect: writes(200) },
  { method: 'POST', path: '/admin/users/:user/reactivate', expect: writes(200) },
  {
    method: 'POST',
    path: '/admin/users/:user/password',
    body: () => ({ password: PASSWORD }),
    // Another user of the caller's tree; one's own password is the last test.
    expect: writes(204),
  },
];

/**
 * One test per cell. Reads and writes are super_admin only (docs/decisions.md "Panel notifications, logs and
 * the roles table"); one's own password is the exception. No session and an API key are both 401 on every
 * admin route.
 */
describe('SPEC 5.7 role matrix of the tenant, type and user endpoints', () => {
  let app: TestApp;
  const tokens = {} as Record<Role, string>;
  const selfIds = {} as Record<Role, string>;
  let apiKey: string;
  const ids: Ids = { type: '', tenant: '', target: '', user: '' };

  beforeAll(async () => {
    app = await startAdminApp();
    tokens.super_admin = await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD);
    const admin = adminClient(app, tokens.super_admin);
    ids.type = await admin.type();
    ids.tenant = await admin.tenant(ids.type);
    ids.target = await admin.tenant(ids.type, ids.tenant);
    ids.user = (await admin.user('viewer', ids.target)).id;
    for (const role of ['tenant_admin', 'viewer'] as const) {
      const u = await admin.user(role, ids.tenant);
      selfIds[role] = u.id;
      tokens[role] = await logIn(app, u.email);
    }
    const root = await app.db.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', ADMIN_EMAIL)
      .executeTakeFirstOrThrow();
    selfIds.super_admin = root.id;
    apiKey = (await seedTenantAndKey(app.gateway.ctx)).key;
  });
  afterAll(() => app.close());

  function call(e: Endpoint, headers: Record<string, string>) {
    const body = e.body?.(ids);
    const path = e.path.replace(':target', ids.target).replace(':user', ids.user);
    return app.request(e.method, path, {
      headers: { ...headers, ...(e.creation ? idem() : {}) },
      ...(body === undefined ? {} : { json: body }),
    });
  }

  for (const e of ENDPOINTS) {
    const label = `${e.method} ${e.path}`;
    // The refused roles first, so a super_admin suspension is followed by its reactivation.
    for (const role of ['viewer', 'tenant_admin', 'super_admin'] as const) {
      test(`SPEC 5.7 ${label} as ${role}: ${e.expect[role]}`, async () => {
        const res = await call(e, bearer(tokens[role]));
        assert.equal(res.status, e.expect[role], res.text);
        if (res.status === 403) assert.equal(res.body.error.code, 'forbidden');
      });
    }
    test(`SPEC 5.6, 7 ${label} without a session: 401 unauthorized`, async () => {
      assertError(await call(e, {}), 401, 'unauthorized');
    });
    test(`SPEC 5.1, 5.6 ${label} with an API key: 401 unauthorized`, async () => {
      assertError(await call(e, { 'x-api-key': apiKey }), 401, 'unauthorized');
      assertError(await call(e, bearer(apiKey)), 401, 'unauthorized');
    });
  }

  test('SPEC 5.7: a refused role is 403 before the body and the Idempotency-Key are looked at', async () => {
    for (const path of ['/admin/tenant-types', '/admin/tenants', '/admin/users']) {
      for (const role of ['tenant_admin', 'viewer'] as const) {
        const res = await app.request('POST', path, { headers: bearer(tokens[role]), raw: '{not json' });
        assertError(res, 403, 'forbidden');
      }
      assertError(await app.request('POST', path, { raw: '{not json' }), 401, 'unauthorized');
    }
  });

  test('SPEC 5.6, 5.7: every role may change its own password', async () => {
    for (const role of ROLES) {
      const res = await app.request('POST', `/admin/users/${selfIds[role]}/password`, {
        headers: bearer(tokens[role]),
        // Issue 23 item 2.4: one's own password needs the current one.
        json: {
          password: `${role} new password`,
          current_password: role === 'super_admin' ? ADMIN_PASSWORD : PASSWORD,
        },
      });
      assert.equal(res.status, 204, `${role}: ${res.text}`);
    }
  });
});
