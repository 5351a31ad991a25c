import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { claimIdempotencyKey } from '../../src/commands/idempotency.ts';
import { tenantIdFor } from '../../src/commands/tenants/create/route.ts';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  adminClient,
  assertError,
  bearer,
  idem,
  logIn,
  startAdminApp,
} from '../support/admin.ts';
import { seedChildTenant, seedTenantAndKey } from '../support/fixtures.ts';
import type { TestApp } from '../support/http.ts';

describe('admin tenant types and tenants over HTTP (SPEC 1, 2.7, 5.5, 5.6, 5.7, 7)', () => {
  let app: TestApp;
  let root: string;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    app = await startAdminApp();
    root = await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD);
    admin = adminClient(app, root);
  });
  afterAll(() => app.close());

  const post = (path: string, json: unknown, headers: Record<string, string> = idem(), token = root) =>
    app.request('POST', path, { headers: { ...bearer(token), ...headers }, json });
  const get = (path: string, token = root) => app.request('GET', path, { headers: bearer(token) });

  test('SPEC 2.7: a type is created and listed with its fields; names are unique case-insensitively (SPEC 7 409 conflict)', async () => {
    const name = `Software house ${randomUUID()}`;
    const key = idem();
    const created = await post('/admin/tenant-types', { name, allows_children: true }, key);
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(Object.keys(created.body.data).sort(), ['allows_children', 'id', 'name']);
    assert.equal(created.headers.get('idempotency-replayed'), null);

    // SPEC 4 common rules: the same key and body replays; the same key with another body is refused.
    const replay = await post('/admin/tenant-types', { name: ` ${name} `, allows_children: true }, key);
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(replay.body.data, created.body.data);
    assertError(
      await post('/admin/tenant-types', { name, allows_children: false }, key),
      409,
      'idempotency_conflict',
    );

    assertError(await post('/admin/tenant-types', { name, allows_children: true }), 409, 'conflict');
    assertError(
      await post('/admin/tenant-types', { name: ' a ', allows_children: true }),
      422,
      'validation_error',
    );
    assertError(
      await post('/admin/tenant-types', { name: 'tab\there', allows_children: true }),
      422,
      'validation_error',
    );
    assertError(await post('/admin/tenant-types', { name, allows_children: 'yes' }), 400, 'invalid_json');
    assertError(
      await post('/admin/tenant-types', { name: name.toUpperCase(), allows_children: false }),
      409,
      'conflict',
    );

    const list = await get('/admin/tenant-types?limit=100');
    assert.equal(list.status, 200);
    assert.ok(list.body.data.some((t: { id: string }) => t.id === created.body.data.id));
  });

  test('DESIGN.md reservation streams: a key claimed by a request that died before the type is completed by its replay', async () => {
    const rootUser = await app.db.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', ADMIN_EMAIL)
      .executeTakeFirstOrThrow();
    const key = randomUUID();
    const body = { name: `Crashed ${randomUUID()}`, allows_children: false };
    // What the route appends first; the process "dies" before TenantType.Created.
    const { claim } = await claimIdempotencyKey(
      app.gateway.ctx,
      {
        scope: rootUser.id,
        key,
        method: 'POST',
        route: '/admin/tenant-types',
        body,
        resourceId: 'tty_crashed0000000000000000',
        payload: {},
      },
      { actor: `user:${rootUser.id}`, request_id: 'req_crashed' },
    );
    const replay = await post('/admin/tenant-types', body, { 'idempotency-key': key });
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(replay.body.data, { id: claim.resource_id, ...body });
    const list = await get('/admin/tenant-types?limit=100');
    assert.ok(list.body.data.some((t: { id: string }) => t.id === claim.resource_id));
  });

  test('SPEC 4.3 list conventions: limit defaults to 50, is clamped to 100, offset >= 0', async () => {
    const def = await get('/admin/tenants');
    assert.deepEqual([def.body.meta.limit, def.body.meta.offset], [50, 0]);
    const clamped = await get('/admin/tenants?limit=500&offset=1');
    assert.equal(clamped.status, 200);
    assert.deepEqual([clamped.body.meta.limit, clamped.body.meta.offset], [100, 1]);
    assert.equal(clamped.body.meta.count, clamped.body.data.length);
    assertError(await get('/admin/tenants?offset=-1'), 422, 'validation_error');
    assertError(await get('/admin/tenant-types?limit=0'), 422, 'validation_error');

    const typeId = await admin.type();
    const ids = [await admin.tenant(typeId), await admin.tenant(typeId), await admin.tenant(typeId)];
    const all = (await get('/admin/tenants?limit=100')).body.data.map((t: { id: string }) => t.id);
    const start = all.indexOf(ids[0]);
    const page = await get(`/admin/tenants?limit=2&offset=${start + 1}`);
    assert.deepEqual(
      page.body.data.map((t: { id: string }) => t.id),
      ids.slice(1),
    );
    assert.equal(page.body.meta.count, 2);
  });

  test('SPEC 1: a child needs a parent whose type allows children (409 conflict); missing type or parent is 404', async () => {
    const parentType = await admin.type(true);
    const leafType = await admin.type(false);
    const parent = await admin.tenant(parentType);
    const leaf = await admin.tenant(leafType, parent);

    const child = await get(`/admin/tenants/${leaf}`);
    assert.equal(child.status, 200);
    assert.deepEqual(child.body.data, {
      id: leaf,
      name: 'Tenant',
      type_id: leafType,
      parent_id: parent,
      status: 'active',
    });

    assertError(
      await post('/admin/tenants', { name: 'Under a leaf', type_id: parentType, parent_id: leaf }),
      409,
      'conflict',
    );
    assertError(await post('/admin/tenants', { name: 'Xy', type_id: 'tty_missing' }), 404, 'not_found');
    assertError(
      await post('/admin/tenants', { name: 'Xy', type_id: parentType, parent_id: 'ten_missing' }),
      404,
      'not_found',
    );
    assertError(await post('/admin/tenants', { name: ' ', type_id: parentType }), 422, 'validation_error');
    assertError(await get('/admin/tenants/ten_missing'), 404, 'not_found');
  });

  test('SPEC 1: parent_id and type_id are immutable: no endpoint changes them, unknown fields are refused', async () => {
    const typeId = await admin.type();
    const t = await admin.tenant(typeId);
    for (const method of ['PATCH', 'PUT']) {
      const res = await app.request(method, `/admin/tenants/${t}`, {
        headers: bearer(root),
        json: { parent_id: null, type_id: typeId },
      });
      assertError(res, 404, 'not_found');
    }
    assertError(
      await post('/admin/tenants', { name: 'Xy', type_id: typeId, ancestor_ids: [] }),
      400,
      'invalid_json',
    );
  });

  test('SPEC 4 common rules: creations need Idempotency-Key; a replay answers the same tenant, another body 409 idempotency_conflict', async () => {
    const typeId = await admin.type();
    assertError(
      await post('/admin/tenants', { name: 'Xy', type_id: typeId }, {}),
      400,
      'idempotency_key_required',
    );
    assertError(
      await post('/admin/tenant-types', { name: 'Yz', allows_children: true }, {}),
      400,
      'idempotency_key_required',
    );

    const key = idem();
    const first = await post('/admin/tenants', { name: 'Replayed', type_id: typeId }, key);
    assert.equal(first.status, 201);
    assert.equal(first.headers.get('idempotency-replayed'), null);
    const second = await post('/admin/tenants', { name: 'Replayed', type_id: typeId }, key);
    assert.equal(second.status, 200);
    assert.equal(second.headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(second.body.data, first.body.data);
    assertError(
      await post('/admin/tenants', { name: 'Other', type_id: typeId }, key),
      409,
      'idempotency_conflict',
    );

    // Keys are per user: another super_admin's identical key creates its own tenant.
    const other = await admin.user('super_admin', null);
    const theirs = await post(
      '/admin/tenants',
      { name: 'Replayed', type_id: typeId },
      key,
      await logIn(app, other.email),
    );
    assert.equal(theirs.status, 201);
    assert.notEqual(theirs.body.data.id, first.body.data.id);
    assert.equal(theirs.body.data.id, tenantIdFor(other.id, key['idempotency-key']));
  });

  test('SPEC 5.7 "Tenants, types, users": tenant_admin and viewer get 403 forbidden on tenant and type reads, their own tree included', async () => {
    const typeId = await admin.type();
    const mine = await admin.tenant(typeId);
    const child = await admin.tenant(typeId, mine);
    const grandchild = await admin.tenant(typeId, child);
    const parentOfMine = await admin.tenant(typeId);
    const otherTree = await admin.tenant(typeId, parentOfMine);

    // Issue 28 item 5: before it, these roles read their own tree; the table says no.
    for (const role of ['tenant_admin', 'viewer']) {
      const token = await logIn(app, (await admin.user(role, child)).email);
      assertError(await get('/admin/tenants?limit=100', token), 403, 'forbidden');
      assertError(await get('/admin/tenant-types', token), 403, 'forbidden');
      for (const id of [child, grandchild, mine, otherTree]) {
        assertError(await get(`/admin/tenants/${id}`, token), 403, 'forbidden');
      }
    }
    const all = await get('/admin/tenants?limit=100&status=active');
    const ids = all.body.data.map((t: { id: string }) => t.id);
    for (const id of [mine, child, grandchild, otherTree]) assert.ok(ids.includes(id));
  });

  test('SPEC 7 cannot_suspend_self: a super_admin cannot suspend their own tenant or one above it', async () => {
    const typeId = await admin.type();
    const top = await admin.tenant(typeId);
    const own = await admin.tenant(typeId, top);
    const below = await admin.tenant(typeId, own);
    const bound = await logIn(app, (await admin.user('super_admin', own)).email);
    assertError(
      await post(`/admin/tenants/${own}/suspend`, undefined, {}, bound),
      409,
      'cannot_suspend_self',
    );
    assertError(
      await post(`/admin/tenants/${top}/suspend`, undefined, {}, bound),
      409,
      'cannot_suspend_self',
    );
    const ok = await post(`/admin/tenants/${below}/suspend`, undefined, {}, bound);
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.data.status, 'suspended');
    assertError(await post('/admin/tenants/ten_missing/suspend', undefined, {}), 404, 'not_found');
    assertError(await post('/admin/tenants/ten_missing/reactivate', undefined, {}), 404, 'not_found');
  });

  test('SPEC 5.5, 5.6: suspending a tenant revokes its subtree sessions and blocks its keys; reactivation restores keys, not sessions', async () => {
    const parent = await seedTenantAndKey(app.gateway.ctx);
    const child = await seedChildTenant(app.gateway.ctx, parent.tenantId);
    const unrelated = await seedTenantAndKey(app.gateway.ctx);
    const childAdmin = await admin.user('tenant_admin', child.tenantId);
    const outsider = await admin.user('viewer', unrelated.tenantId);
    const childToken = await logIn(app, childAdmin.email);
    const outsiderToken = await logIn(app, outsider.email);
    const key = (k: string) => app.request('GET', '/test/key', { headers: { 'x-api-key': k } });
    assert.equal((await key(child.key)).status, 200);

    const suspended = await post(`/admin/tenants/${parent.tenantId}/suspend`, undefined, {});
    assert.equal(suspended.status, 200);
    assert.equal(suspended.body.data.status, 'suspended');
    // Repeating is a no-op.
    assert.equal((await post(`/admin/tenants/${parent.tenantId}/suspend`, undefined, {})).status, 200);

    // Sessions are probed with a read every panel role has (SPEC 5.7: tenants are super_admin only).
    assertError(await get('/admin/audit?limit=1', childToken), 401, 'unauthorized');
    assertError(await key(parent.key), 403, 'tenant_suspended');
    assertError(await key(child.key), 403, 'tenant_suspended');
    assertError(
      await app.request('POST', '/admin/sessions', {
        json: { email: childAdmin.email, password: 'a long enough password' },
      }),
      403,
      'tenant_suspended',
    );
    assert.equal((await key(unrelated.key)).status, 200, 'other trees are untouched');
    assert.equal((await get('/admin/audit?limit=1', outsiderToken)).status, 200);

    const reactivated = await post(`/admin/tenants/${parent.tenantId}/reactivate`, undefined, {});
    assert.equal(reactivated.status, 200);
    assert.equal(reactivated.body.data.status, 'active');
    assert.equal((await key(parent.key)).status, 200);
    assert.equal((await key(child.key)).status, 200);
    assertError(await get('/admin/audit?limit=1', childToken), 401, 'unauthorized');
    const fresh = await logIn(app, childAdmin.email);
    assert.equal((await get('/admin/audit?limit=1', fresh)).status, 200);
  });
});
