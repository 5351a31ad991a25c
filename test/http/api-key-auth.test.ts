import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { z } from 'zod';
import type { Gateway } from '../../src/app.ts';
import { revokeApiKey } from '../../src/commands/api-keys/revoke/handler.ts';
import { reactivateTenant } from '../../src/commands/tenants/reactivate/handler.ts';
import { suspendTenant } from '../../src/commands/tenants/suspend/handler.ts';
import { dataEnvelope } from '../../src/contract/envelopes.ts';
import { API_KEY_PREFIX } from '../../src/crypto/secrets.ts';
import { defineEvent } from '../../src/events/event-registry.ts';
import { apiKeyPrincipal } from '../../src/http/auth.ts';
import { commandDeps, seedChildTenant, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

const metadata = { actor: 'user:usr_admin', request_id: 'req_test' };

const whoami = z.object({
  key_id: z.string(),
  tenant_id: z.string(),
  livemode: z.boolean(),
  access_profile: z.enum(['standard', 'developer']),
  scopes: z.array(z.string()),
});

/**
 * Test-only routes, documented so every response is validated against /openapi.json:
 * - GET /test/whoami: needs `transactions:read`;
 * - GET /test/refresh: also refused to `developer` keys (SPEC 5.4: they cannot refresh or simulate);
 * - POST /test/touch: a creation (needs Idempotency-Key) that appends one event when it gets through.
 */
function testRoutes(gw: Gateway) {
  gw.ctx.events.register(
    defineEvent({
      type: 'Test.Touched',
      version: 1,
      schema: z.strictObject({ key_id: z.string(), idempotency_key: z.string() }),
    }),
  );
  const principalView = (request: Parameters<typeof apiKeyPrincipal>[0]) => {
    const p = apiKeyPrincipal(request);
    return {
      key_id: p.keyId,
      tenant_id: p.tenantId,
      livemode: p.livemode,
      access_profile: p.accessProfile,
      scopes: [...p.scopes].sort(),
    };
  };
  gw.http.get(
    '/test/whoami',
    {
      config: { access: { auth: 'api_key', scopes: ['transactions:read'] } },
      schema: { response: { 200: dataEnvelope(whoami) } },
    },
    async (request) => ({ data: principalView(request) }),
  );
  gw.http.get(
    '/test/refresh',
    {
      config: { access: { auth: 'api_key', scopes: ['transactions:read'], notForDeveloperKeys: true } },
      schema: { response: { 200: dataEnvelope(whoami) } },
    },
    async (request) => ({ data: principalView(request) }),
  );
  gw.http.post(
    '/test/touch',
    {
      config: { access: { auth: 'api_key', scopes: ['transactions:read'], idempotencyKey: true } },
      schema: {
        body: z.strictObject({ note: z.string() }),
        response: { 200: dataEnvelope(z.object({ idempotency_key: z.string() })) },
      },
    },
    async (request) => {
      const p = apiKeyPrincipal(request);
      const idempotencyKey = String(request.headers['idempotency-key']);
      const event = gw.ctx.events.encode({
        type: 'Test.Touched',
        data: { key_id: p.keyId, idempotency_key: idempotencyKey },
      });
      await gw.store.append(
        `test_touch-${request.id}`,
        [{ ...event, id: randomUUID(), metadata: { actor: p.actor, request_id: request.id } }],
        'no_stream',
      );
      return { data: { idempotency_key: idempotencyKey } };
    },
  );
}

describe('X-API-Key authentication over the real stack (SPEC 4 common rules, 5, 7)', () => {
  let app: TestApp;
  const get = (path: string, key?: string) =>
    app.request('GET', path, key === undefined ? {} : { headers: { 'x-api-key': key } });
  const touch = (key: string, idempotencyKey?: string) =>
    app.request('POST', '/test/touch', {
      headers: {
        'x-api-key': key,
        ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
      },
      json: { note: 'hello' },
    });
  const eventCount = async () =>
    Number((await sql<{ n: string }>`select count(*) as n from events`.execute(app.db.db)).rows[0]?.n);
  const deps = () => commandDeps(app.gateway.ctx);

  function assertError(
    res: { status: number; body: { error: { code: string } } },
    status: number,
    code: string,
  ) {
    assert.equal(res.status, status, JSON.stringify(res.body));
    assert.equal(res.body.error.code, code);
  }

  beforeAll(async () => {
    app = await startTestApp({}, testRoutes);
  });
  afterAll(() => app.close());

  test('SPEC 5.1, 5.2: test and live keys authenticate; the key determines tenant, mode, scopes, profile', async () => {
    const test = await seedTenantAndKey(app.gateway.ctx, { scopes: ['transactions:read', 'pix:write'] });
    const live = await seedTenantAndKey(app.gateway.ctx, { livemode: true, accessProfile: 'developer' });
    const t = await get('/test/whoami', test.key);
    assert.equal(t.status, 200);
    assert.deepEqual(t.body.data, {
      key_id: test.keyId,
      tenant_id: test.tenantId,
      livemode: false,
      access_profile: 'standard',
      scopes: ['pix:write', 'transactions:read'],
    });
    const l = await get('/test/whoami', live.key);
    assert.equal(l.status, 200);
    assert.equal(l.body.data.livemode, true);
    assert.equal(l.body.data.access_profile, 'developer');
  });

  test('SPEC 5.1, 7 unauthorized: a missing or empty X-API-Key is 401', async () => {
    assertError(await get('/test/whoami'), 401, 'unauthorized');
    assertError(await get('/test/whoami', ''), 401, 'unauthorized');
  });

  test('SPEC 7 unauthorized: a well-formed key that was never issued is 401', async () => {
    for (const prefix of [API_KEY_PREFIX.test, API_KEY_PREFIX.live, API_KEY_PREFIX.legacyLive]) {
      assertError(
        await get('/test/whoami', `${prefix}${randomBytes(32).toString('base64url')}`),
        401,
        'unauthorized',
      );
    }
  });

  test('SPEC 7 unauthorized: malformed keys are 401 (no prefix, foreign prefix, truncated, altered, oversized)', async () => {
    const { key } = await seedTenantAndKey(app.gateway.ctx);
    for (const bad of [
      'hello',
      key.slice(API_KEY_PREFIX.test.length),
      `sk_test_${key.slice(API_KEY_PREFIX.test.length)}`,
      key.slice(0, -1),
      `${key}x`,
      key.toUpperCase(),
      `${key}${'x'.repeat(200)}`,
    ]) {
      assertError(await get('/test/whoami', bad), 401, 'unauthorized');
    }
    assert.equal((await get('/test/whoami', key)).status, 200);
  });

  test('SPEC 5.2, 7 unauthorized: a key whose prefix claims the other mode is 401', async () => {
    const test = await seedTenantAndKey(app.gateway.ctx);
    const random = test.key.slice(API_KEY_PREFIX.test.length);
    // The same secret under the live prefixes is another key, and no such key exists.
    assertError(await get('/test/whoami', `${API_KEY_PREFIX.live}${random}`), 401, 'unauthorized');
    assertError(await get('/test/whoami', `${API_KEY_PREFIX.legacyLive}${random}`), 401, 'unauthorized');
    // Defence in depth: were a stored key's mode ever to disagree with its prefix, the prefix is not trusted.
    // The decider refuses to issue such a key, so only tampering with the read model can produce one.
    await app.db.db.updateTable('api_keys').set({ livemode: true }).where('id', '=', test.keyId).execute();
    assertError(await get('/test/whoami', test.key), 401, 'unauthorized');
    await app.db.db.updateTable('api_keys').set({ livemode: false }).where('id', '=', test.keyId).execute();
    assert.equal((await get('/test/whoami', test.key)).status, 200);
  });

  test('issue 23 item 1.7: each 401 says what was wrong with the credential sent, and never tells unknown from revoked', async () => {
    const messageOf = async (headers: Record<string, string>, path = '/test/whoami') => {
      const res = await app.request('GET', path, { headers });
      assertError(res, 401, 'unauthorized');
      return String(res.body.error.message);
    };
    // Three different mistakes, three different texts (today's main answers one text for all).
    const missing = await messageOf({});
    assert.match(missing, /No X-API-Key header/);
    const malformed = await messageOf({ 'x-api-key': 'sk_test_abc' });
    assert.match(malformed, /Malformed X-API-Key/);
    assert.match(malformed, /clb_test_/);
    assert.match(malformed, /clb_live_/);
    const bearer = await messageOf({ authorization: 'Bearer cls_abc' });
    assert.match(bearer, /Authorization: Bearer is for panel sessions; the API takes X-API-Key/);
    assert.equal(new Set([missing, malformed, bearer]).size, 3);
    // Oversized keys are malformed too.
    assert.equal(await messageOf({ 'x-api-key': `${API_KEY_PREFIX.test}${'x'.repeat(300)}` }), malformed);

    // Never issued, revoked, and a secret under the other mode's prefix: one text (no oracle for a secret).
    const issued = await seedTenantAndKey(app.gateway.ctx);
    await revokeApiKey(deps(), issued.keyId, metadata);
    const other = await seedTenantAndKey(app.gateway.ctx);
    const texts = [
      await messageOf({ 'x-api-key': `${API_KEY_PREFIX.live}${randomBytes(32).toString('base64url')}` }),
      await messageOf({ 'x-api-key': `${API_KEY_PREFIX.test}${randomBytes(32).toString('base64url')}` }),
      await messageOf({ 'x-api-key': issued.key }),
      await messageOf({
        'x-api-key': `${API_KEY_PREFIX.live}${other.key.slice(API_KEY_PREFIX.test.length)}`,
      }),
    ];
    assert.deepEqual(new Set(texts), new Set(['Unknown or revoked API key.']));

    // The panel API says the matching things about its own credential.
    const panel = '/admin/tenants';
    assert.match(await messageOf({}, panel), /No Authorization header/);
    assert.match(await messageOf({ 'x-api-key': other.key }, panel), /X-API-Key is for the public API/);
    assert.match(await messageOf({ authorization: 'Token abc' }, panel), /Malformed Authorization header/);
    assert.match(
      await messageOf({ authorization: `Bearer cls_${randomBytes(32).toString('base64url')}` }, panel),
      /Unknown, expired or revoked session/,
    );
  });

  test('SPEC 5, 7 unauthorized: a revoked key is refused on the very next request', async () => {
    const { key, keyId } = await seedTenantAndKey(app.gateway.ctx);
    assert.equal((await get('/test/whoami', key)).status, 200);
    await revokeApiKey(deps(), keyId, metadata);
    assertError(await get('/test/whoami', key), 401, 'unauthorized');
    assertError(await touch(key, 'after-revoke'), 401, 'unauthorized');
  });

  test('SPEC 5.3, 7 insufficient_scope: a key without the route’s scope is 403', async () => {
    const { key } = await seedTenantAndKey(app.gateway.ctx, { scopes: ['pix:write', 'boleto:write'] });
    const res = await get('/test/whoami', key);
    assertError(res, 403, 'insufficient_scope');
    assert.match(res.body.error.message, /transactions:read/);
  });

  test('SPEC 5.4, 7 insufficient_scope: a developer key is refused where developer keys may not go', async () => {
    const dev = await seedTenantAndKey(app.gateway.ctx, { accessProfile: 'developer' });
    const standard = await seedTenantAndKey(app.gateway.ctx);
    assert.equal((await get('/test/whoami', dev.key)).status, 200, 'developer keys read');
    assertError(await get('/test/refresh', dev.key), 403, 'insufficient_scope');
    assert.equal((await get('/test/refresh', standard.key)).status, 200);
  });

  test('SPEC 5.5, 7 tenant_suspended: a suspended tenant’s key is 403; reactivation restores it', async () => {
    const { key, tenantId } = await seedTenantAndKey(app.gateway.ctx);
    await suspendTenant(deps(), tenantId, metadata);
    assertError(await get('/test/whoami', key), 403, 'tenant_suspended');
    assertError(await touch(key, 'while-suspended'), 403, 'tenant_suspended');
    await reactivateTenant(deps(), tenantId, metadata);
    assert.equal((await get('/test/whoami', key)).status, 200);
  });

  test('SPEC 5.5, 7 tenant_suspended: a suspended ancestor blocks every descendant’s key, not the reverse', async () => {
    const root = await seedTenantAndKey(app.gateway.ctx);
    const child = await seedChildTenant(app.gateway.ctx, root.tenantId);
    const grandchild = await seedChildTenant(app.gateway.ctx, child.tenantId);

    await suspendTenant(deps(), root.tenantId, metadata);
    for (const k of [root, child, grandchild])
      assertError(await get('/test/whoami', k.key), 403, 'tenant_suspended');
    await reactivateTenant(deps(), root.tenantId, metadata);
    for (const k of [root, child, grandchild]) assert.equal((await get('/test/whoami', k.key)).status, 200);

    // Suspending the middle blocks it and below; the root is untouched.
    await suspendTenant(deps(), child.tenantId, metadata);
    assert.equal((await get('/test/whoami', root.key)).status, 200);
    assertError(await get('/test/whoami', child.key), 403, 'tenant_suspended');
    assertError(await get('/test/whoami', grandchild.key), 403, 'tenant_suspended');
    await reactivateTenant(deps(), child.tenantId, metadata);
    assert.equal((await get('/test/whoami', grandchild.key)).status, 200);
  });

  test('SPEC 4 common rules, 7 idempotency_key_required: missing, empty, too long or bad characters are 400', async () => {
    const { key } = await seedTenantAndKey(app.gateway.ctx);
    for (const bad of [
      undefined,
      '',
      'x'.repeat(129),
      'has space',
      'slash/key',
      'quote"',
      'ação',
      'semi;colon',
    ]) {
      assertError(await touch(key, bad), 400, 'idempotency_key_required');
    }
    for (const good of ['a', 'x'.repeat(128), 'order-2026.03:01_A']) {
      const res = await touch(key, good);
      assert.equal(res.status, 200, good);
      assert.equal(res.body.data.idempotency_key, good);
    }
  });

  test('credentials come first: an unknown key is 401 and a scopeless key 403, whatever the Idempotency-Key', async () => {
    const noScope = await seedTenantAndKey(app.gateway.ctx, { scopes: ['pix:write'] });
    assertError(await touch(`${API_KEY_PREFIX.test}unknown`), 401, 'unauthorized');
    assertError(await touch(noScope.key), 403, 'insufficient_scope');
  });

  test('a refused request appends no event; an accepted one appends exactly one', async () => {
    const ok = await seedTenantAndKey(app.gateway.ctx);
    const revoked = await seedTenantAndKey(app.gateway.ctx);
    await revokeApiKey(deps(), revoked.keyId, metadata);
    const noScope = await seedTenantAndKey(app.gateway.ctx, { scopes: ['pix:write'] });
    const suspended = await seedTenantAndKey(app.gateway.ctx);
    await suspendTenant(deps(), suspended.tenantId, metadata);

    const before = await eventCount();
    const refused = [
      await app.request('POST', '/test/touch', { headers: { 'idempotency-key': 'k1' }, json: { note: 'x' } }),
      await touch(`${API_KEY_PREFIX.live}${randomBytes(32).toString('base64url')}`, 'k2'),
      await touch('malformed', 'k3'),
      await touch(revoked.key, 'k4'),
      await touch(noScope.key, 'k5'),
      await touch(suspended.key, 'k6'),
      await touch(ok.key),
      await touch(ok.key, 'bad key'),
    ];
    assert.deepEqual(
      refused.map((r) => r.status),
      [401, 401, 401, 401, 403, 403, 400, 400],
    );
    assert.equal(await eventCount(), before);
    assert.equal((await touch(ok.key, 'k7')).status, 200);
    assert.equal(await eventCount(), before + 1);
  });
});
