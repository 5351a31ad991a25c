import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { z } from 'zod';
import { SCOPES } from '../../src/aggregates/access.ts';
import { loadApiKey } from '../../src/commands/api-keys/api-key-record.ts';
import { claimIdempotencyKey } from '../../src/commands/idempotency.ts';
import { createUser } from '../../src/commands/users/create/handler.ts';
import { identityDeps } from '../../src/commands/users/identity-deps.ts';
import { dataEnvelope } from '../../src/contract/envelopes.ts';
import { sha256Hex } from '../../src/crypto/secrets.ts';
import { apiKeyPrincipal } from '../../src/http/auth.ts';
import { commandDeps, seedChildTenant, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

const ADMIN_EMAIL = 'admin@example.com';
const ADMIN_PASSWORD = 'bootstrap admin password';
const PASSWORD = 'a long enough password';
const metadata = { actor: 'system:test', request_id: 'req_test' };

describe('panel API keys over HTTP (SPEC 2.7, 4, 5.2-5.4, 5.7, 7)', () => {
  let app: TestApp;
  let superToken: string;
  let adminToken: string;
  let viewerToken: string;
  /** The tenant_admin's tree: root with a child; `other` is a separate tree. */
  let root: string;
  let child: string;
  let other: string;

  beforeAll(async () => {
    app = await startTestApp(
      { BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL, BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD, BCRYPT_COST: '4' },
      (gw) => {
        // No /v1 route exists yet: a stand-in authenticated by X-API-Key.
        gw.http.get(
          '/test/key',
          {
            config: { access: { auth: 'api_key' } },
            schema: { response: { 200: dataEnvelope(z.object({ key_id: z.string() })) } },
          },
          async (request) => ({ data: { key_id: apiKeyPrincipal(request).keyId } }),
        );
      },
    );
    const ctx = app.gateway.ctx;
    root = (await seedTenantAndKey(ctx)).tenantId;
    child = (await seedChildTenant(ctx, root)).tenantId;
    other = (await seedTenantAndKey(ctx)).tenantId;
    const deps = identityDeps(ctx);
    await createUser(
      deps,
      { email: 'ta@example.com', password: PASSWORD, role: 'tenant_admin', tenant_id: root },
      metadata,
    );
    await createUser(
      deps,
      { email: 'vw@example.com', password: PASSWORD, role: 'viewer', tenant_id: root },
      metadata,
    );
    superToken = await tokenFor(ADMIN_EMAIL, ADMIN_PASSWORD);
    adminToken = await tokenFor('ta@example.com', PASSWORD);
    viewerToken = await tokenFor('vw@example.com', PASSWORD);
  });
  afterAll(() => app.close());

  async function tokenFor(email: string, password: string): Promise<string> {
    const res = await app.request('POST', '/admin/sessions', { json: { email, password } });
    assert.equal(res.status, 201, res.text);
    return res.body.data.token;
  }

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  function issue(token: string, body: unknown, key: string | null = `k-${randomUUID()}`) {
    const headers: Record<string, string> = bearer(token);
    if (key !== null) headers['idempotency-key'] = key;
    return app.request('POST', '/admin/api-keys', { headers, json: body });
  }

  const body = (tenantId: string, extra: Record<string, unknown> = {}) => ({
    tenant_id: tenantId,
    mode: 'test',
    scopes: ['pix:write', 'transactions:read'],
    name: 'Integration',
    ...extra,
  });

  test('SPEC 2.7, 5.2: super_admin issues a key; the secret appears only in the 201 answer and is stored as its SHA-256', async () => {
    const res = await issue(superToken, body(other, { mode: 'live', scopes: [...SCOPES] }));
    assert.equal(res.status, 201, res.text);
    const d = res.body.data;
    assert.match(d.id, /^key_/);
    assert.match(d.key, /^clb_live_/);
    assert.equal(d.tenant_id, other);
    assert.equal(d.mode, 'live');
    assert.deepEqual(d.scopes, [...SCOPES]);
    assert.equal(d.access_profile, 'standard');
    assert.equal(d.status, 'issued');
    assert.equal(d.revoked_at, null);
    assert.ok(d.key.startsWith(d.prefix));
    await app.settle();
    const row = await app.db.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', d.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.secret_sha256, sha256Hex(d.key));
    const events = await app.db.db.selectFrom('events').select(['data']).execute();
    assert.ok(!JSON.stringify(events).includes(d.key), 'the secret is in no event');
    assert.ok(!app.logs.join('\n').includes(d.key), 'the secret is in no log line');
  });

  test('SPEC 5.3: scopes are explicit; boleto:write is never added by default; an empty list is 422', async () => {
    const res = await issue(superToken, body(root, { scopes: ['pix:write'] }));
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.data.scopes, ['pix:write']);
    const missing = await issue(superToken, { tenant_id: root, mode: 'test', name: 'x key' });
    assert.equal(missing.status, 422);
    assert.equal(missing.body.error.code, 'validation_error');
    const empty = await issue(superToken, body(root, { scopes: [] }));
    assert.equal(empty.status, 422);
    assert.equal(empty.body.error.code, 'validation_error');
    const unknown = await issue(superToken, body(root, { scopes: ['admin:all'] }));
    assert.equal(unknown.status, 422);
    const repeated = await issue(superToken, body(root, { scopes: ['pix:write', 'pix:write'] }));
    assert.equal(repeated.status, 422);
    assert.equal(repeated.body.error.code, 'validation_error');
  });

  test('SPEC 5.4: access_profile is fixed by the server; a client-sent access_profile is 400 invalid_json', async () => {
    const res = await issue(superToken, body(root, { access_profile: 'standard' }));
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'invalid_json');
    const ok = await issue(adminToken, body(child));
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.data.access_profile, 'standard');
  });

  test('SPEC 5.7: tenant_admin issues for its own tenant and children; another tree is 404 not_found', async () => {
    for (const tenant of [root, child]) {
      // Every scope it could exercise (SPEC 5.3; the subtenant writes are super_admin's: issue 12).
      const scopes = SCOPES.filter((s) => s !== 'subtenants:write' && s !== 'subtenants:keys:write');
      const res = await issue(adminToken, body(tenant, { scopes }));
      assert.equal(res.status, 201, res.text);
    }
    const outside = await issue(adminToken, body(other));
    assert.equal(outside.status, 404);
    assert.equal(outside.body.error.code, 'not_found');
    const missing = await issue(superToken, body('ten_missing'));
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'not_found');
  });

  test('SPEC 5.7, 7: viewer cannot issue, list or revoke (403 forbidden); no session is 401 unauthorized', async () => {
    const res = await issue(viewerToken, body(root));
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'forbidden');
    const list = await app.request('GET', '/admin/api-keys', { headers: bearer(viewerToken) });
    assert.equal(list.status, 403);
    const del = await app.request('DELETE', '/admin/api-keys/key_x', { headers: bearer(viewerToken) });
    assert.equal(del.status, 403);
    for (const [method, path] of [
      ['POST', '/admin/api-keys'],
      ['GET', '/admin/api-keys'],
      ['DELETE', '/admin/api-keys/key_x'],
    ] as const) {
      const anon = await app.request(method, path, {
        headers: { 'idempotency-key': 'k1' },
        ...(method === 'POST' ? { json: body(root) } : {}),
      });
      assert.equal(anon.status, 401, `${method} ${path}`);
      assert.equal(anon.body.error.code, 'unauthorized');
    }
  });

  test('SPEC 4, 7: Idempotency-Key missing or outside the pattern is 400 idempotency_key_required', async () => {
    const missing = await issue(superToken, body(root), null);
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.code, 'idempotency_key_required');
    const invalid = await issue(superToken, body(root), 'has space');
    assert.equal(invalid.status, 400);
    assert.equal(invalid.body.error.code, 'idempotency_key_required');
    const long = await issue(superToken, body(root), 'a'.repeat(129));
    assert.equal(long.status, 400);
  });

  test('SPEC 4: same Idempotency-Key and body (any property or scope order) replays 200 without the secret; another body is 409', async () => {
    const key = `replay-${randomUUID()}`;
    const first = await issue(adminToken, body(root, { scopes: ['transactions:read', 'pix:write'] }), key);
    assert.equal(first.status, 201, first.text);
    const again = await issue(
      adminToken,
      { name: 'Integration', scopes: ['pix:write', 'transactions:read'], mode: 'test', tenant_id: root },
      key,
    );
    assert.equal(again.status, 200, again.text);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.equal(again.body.data.id, first.body.data.id);
    assert.equal(again.body.data.prefix, first.body.data.prefix);
    assert.equal(again.body.data.key, undefined, 'the secret cannot be shown again');
    assert.equal(first.headers.get('idempotency-replayed'), null);

    const conflict = await issue(adminToken, body(root, { name: 'Other name' }), key);
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.error.code, 'idempotency_conflict');
    const otherTenant = await issue(adminToken, body(child), key);
    assert.equal(otherTenant.status, 409);
    assert.equal(otherTenant.body.error.code, 'idempotency_conflict');

    const count = await app.db.db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('id', '=', first.body.data.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 1);
  });

  test('SPEC 4: concurrent requests with one Idempotency-Key issue one key; its secret is shown exactly once', async () => {
    const key = `race-${randomUUID()}`;
    const results = await Promise.all(Array.from({ length: 8 }, () => issue(superToken, body(root), key)));
    const created = results.filter((r) => r.status === 201);
    assert.equal(created.length, 1, results.map((r) => `${r.status} ${r.text}`).join('\n'));
    assert.ok(created[0]?.body.data.key);
    for (const r of results) {
      assert.equal(r.body.data.id, created[0]?.body.data.id);
      if (r.status === 200) {
        assert.equal(r.headers.get('idempotency-replayed'), 'true');
        assert.equal(r.body.data.key, undefined);
      }
    }
  });

  test('SPEC 4: the idempotency scope is the user, so two administrators may use the same Idempotency-Key', async () => {
    const key = `shared-${randomUUID()}`;
    const a = await issue(adminToken, body(root), key);
    const b = await issue(superToken, body(root), key);
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    assert.notEqual(a.body.data.id, b.body.data.id);
  });

  test('DESIGN reservation streams: a claim left without its key (crash between the appends) is completed by the replay', async () => {
    const key = `crash-${randomUUID()}`;
    const userId = (
      await app.db.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', 'ta@example.com')
        .executeTakeFirstOrThrow()
    ).id;
    const req = {
      tenant_id: root,
      mode: 'test',
      scopes: ['pix:write', 'transactions:read'],
      name: 'Integration',
    };
    // The first request's claim, as if the process died right after it.
    const { claim } = await claimIdempotencyKey(
      app.gateway.ctx,
      {
        scope: userId,
        key,
        method: 'POST',
        route: '/admin/api-keys',
        body: req,
        resourceId: 'key_crashed0000000000000000',
        payload: { ...req, access_profile: 'standard', created_by: `user:${userId}` },
      },
      metadata,
    );
    assert.equal(await loadApiKey(commandDeps(app.gateway.ctx), claim.resource_id), undefined);
    const res = await issue(adminToken, req, key);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.id, 'key_crashed0000000000000000');
    assert.match(res.body.data.key, /^clb_test_/, 'never shown before, so shown now');
    const again = await issue(adminToken, req, key);
    assert.equal(again.status, 200);
    assert.equal(again.body.data.key, undefined);
  });

  test('SPEC 2.7, 5.7: GET lists the tree (super_admin all, tenant_admin own tree) with prefix, never the secret or digest', async () => {
    const mine = await app.request('GET', '/admin/api-keys?limit=100', { headers: bearer(adminToken) });
    assert.equal(mine.status, 200, mine.text);
    assert.ok(mine.body.data.length > 0);
    for (const k of mine.body.data) {
      assert.ok([root, child].includes(k.tenant_id), 'only its own tree');
      assert.equal(k.key, undefined);
      assert.equal(k.secret_sha256, undefined);
      assert.ok(k.prefix.startsWith('clb_'));
      assert.ok(k.created_at);
    }
    const all = await app.request('GET', '/admin/api-keys?limit=100', { headers: bearer(superToken) });
    assert.ok(all.body.data.some((k: { tenant_id: string }) => k.tenant_id === other));
    assert.equal(all.body.meta.count, all.body.data.length);

    const filtered = await app.request(`GET`, `/admin/api-keys?tenant_id=${child}`, {
      headers: bearer(adminToken),
    });
    assert.equal(filtered.status, 200);
    assert.ok(filtered.body.data.every((k: { tenant_id: string }) => k.tenant_id === child));
    const page = await app.request('GET', '/admin/api-keys?limit=1&offset=1', {
      headers: bearer(superToken),
    });
    assert.equal(page.body.data.length, 1);
    assert.equal(page.body.meta.limit, 1);
    assert.equal(page.body.meta.offset, 1);
    assert.equal(page.body.data[0].id, all.body.data[1].id);

    const outside = await app.request('GET', `/admin/api-keys?tenant_id=${other}`, {
      headers: bearer(adminToken),
    });
    assert.equal(outside.status, 404);
    assert.equal(outside.body.error.code, 'not_found');
    const bad = await app.request('GET', '/admin/api-keys?limit=0', { headers: bearer(adminToken) });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.code, 'validation_error');
    assert.ok(!all.text.includes('secret_sha256'));
  });

  test('SPEC 5.1, 5.7: DELETE revokes at once (the key is 401 on its next request), is idempotent, and 404 outside the tree', async () => {
    const issued = await issue(adminToken, body(child));
    assert.equal(issued.status, 201);
    const { id, key } = issued.body.data;
    const outside = await issue(superToken, body(other));
    const foreign = await app.request('DELETE', `/admin/api-keys/${outside.body.data.id}`, {
      headers: bearer(adminToken),
    });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error.code, 'not_found');
    const missing = await app.request('DELETE', '/admin/api-keys/key_missing', {
      headers: bearer(superToken),
    });
    assert.equal(missing.status, 404);

    const before = await app.request('GET', '/test/key', { headers: { 'x-api-key': key } });
    assert.equal(before.status, 200, before.text);
    assert.equal(before.body.data.key_id, id);
    const del = await app.request('DELETE', `/admin/api-keys/${id}`, { headers: bearer(adminToken) });
    assert.equal(del.status, 200, del.text);
    assert.equal(del.body.data.status, 'revoked');
    assert.ok(del.body.data.revoked_at);
    assert.equal(del.body.data.key, undefined);
    // Inline: in the append's transaction. Async: authentication catches the read model up itself (the 401
    // below); settled here to look at it.
    await app.settle();
    const row = await app.db.db
      .selectFrom('api_keys')
      .select('revoked_at')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.ok(row.revoked_at, 'the read model authentication uses sees it at once');
    const again = await app.request('DELETE', `/admin/api-keys/${id}`, { headers: bearer(superToken) });
    assert.equal(again.status, 200);
    assert.equal(again.body.data.revoked_at, del.body.data.revoked_at);
    const after = await app.request('GET', '/test/key', { headers: { 'x-api-key': key } });
    assert.equal(after.status, 401);
    assert.equal(after.body.error.code, 'unauthorized');
  });

  test('SPEC 5.3: a key cannot create another key (the panel route takes only sessions: 401)', async () => {
    const { key } = await seedTenantAndKey(app.gateway.ctx);
    const res = await app.request('POST', '/admin/api-keys', {
      headers: { 'x-api-key': key, 'idempotency-key': 'k' },
      json: body(root),
    });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'unauthorized');
  });
});
