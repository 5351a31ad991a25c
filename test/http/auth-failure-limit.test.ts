import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Agent, request as undiciRequest } from 'undici';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { createUser } from '../../src/commands/users/create/handler.ts';
import { identityDeps } from '../../src/commands/users/identity-deps.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { API_KEY_PREFIX } from '../../src/crypto/secrets.ts';
import { logIn, PASSWORD } from '../support/admin.ts';
import { seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const LIMIT = 5;

/**
 * Issue 12 item 2 (OWASP API4): every unknown API key or session token costs a database lookup, so failed
 * authentication is limited per client address: past AUTH_FAILURES_PER_MINUTE failures, that address's
 * failing attempts get 429 rate_limit_exceeded instead of 401.
 *
 * Issue 23 item 2.2: behind a load balancer every merchant shares one address, so a block that refused
 * every credential let one client lock every tenant out. A valid key or session is now always served
 * (subject only to its own per-actor limit), whatever failures were counted against its address; and the
 * client address comes from X-Forwarded-For only through TRUST_PROXY (default off: the connection's own
 * address, SPEC 8), so a client cannot escape its count by sending the header.
 */

/** A request from a chosen loopback source address (the whole of 127.0.0.0/8 is local on Linux). */
async function from(app: TestApp, localAddress: string, path: string, headers: Record<string, string>) {
  const dispatcher = new Agent({ localAddress });
  try {
    const res = await undiciRequest(`${app.baseUrl}${path}`, { headers, dispatcher });
    const body = (await res.body.json()) as { error?: { code: string; request_id: string } };
    return { status: res.statusCode, body, requestId: res.headers['x-request-id'] };
  } finally {
    await dispatcher.close();
  }
}

const badKey = () => ({ 'x-api-key': `${API_KEY_PREFIX.test}${randomBytes(24).toString('hex')}` });
const badToken = () => ({ authorization: `Bearer cls_${randomBytes(24).toString('hex')}` });

async function deleteKeys(prefix: string): Promise<void> {
  const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 0 });
  try {
    const keys = await client.keys(`${prefix}:*`);
    if (keys.length > 0) await client.del(...keys);
  } finally {
    client.disconnect();
  }
}

async function failureKeys(prefix: string): Promise<string[]> {
  const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 0 });
  try {
    return await client.keys(`${prefix}:auth_failure:*`);
  } finally {
    client.disconnect();
  }
}

/** Sends LIMIT bad credentials (each 401), then one more, which must be the address's 429. */
async function exhaust(send: () => ReturnType<typeof from>): Promise<void> {
  for (let i = 0; i < LIMIT; i++) {
    const res = await send();
    assert.equal(res.status, 401, `failure ${i + 1}`);
    assert.equal(res.body.error?.code, 'unauthorized');
  }
  const blocked = await send();
  assert.equal(blocked.status, 429);
  assert.equal(blocked.body.error?.code, 'rate_limit_exceeded');
  assert.equal(blocked.body.error?.request_id, blocked.requestId);
}

/** A panel user of a fresh tenant, logged in: its Bearer header. */
async function session(app: TestApp): Promise<Record<string, string>> {
  const { tenantId } = await seedTenantAndKey(app.gateway.ctx);
  const email = `viewer-${randomBytes(4).toString('hex')}@example.com`;
  await createUser(
    identityDeps(app.gateway.ctx),
    { email, password: PASSWORD, role: 'viewer', tenant_id: tenantId },
    { actor: 'system:test', request_id: 'req_test' },
  );
  return { authorization: `Bearer ${await logIn(app, email)}` };
}

for (const store of ['redis', 'memory'] as const) {
  describe(`Issues 12 item 2, 23 item 2.2: failed authentication limited per address (${store} store; SPEC 7, 8)`, () => {
    const prefix = `calebe-test:${randomBytes(6).toString('hex')}`;
    let app: TestApp;
    let key: string;
    let viewer: Record<string, string>;
    beforeAll(async () => {
      app = await startTestApp({
        AUTH_FAILURES_PER_MINUTE: String(LIMIT),
        BCRYPT_COST: '4',
        ...(store === 'redis' ? { REDIS_URL, REDIS_KEY_PREFIX: prefix } : {}),
      });
      key = (await seedTenantAndKey(app.gateway.ctx, { scopes: ['transactions:read'] })).key;
      viewer = await session(app);
    });
    afterAll(async () => {
      await app.close();
      if (store === 'redis') await deleteKeys(prefix);
    });

    test('SPEC 8: past the limit an address gets 429 for bad keys, yet a valid key from it is served', async () => {
      const address = '127.0.0.2';
      await exhaust(() => from(app, address, '/v1/transactions', badKey()));
      // Issue 23 item 2.2: someone else's failures from the same address never refuse a valid key.
      const valid = await from(app, address, '/v1/transactions', { 'x-api-key': key });
      assert.equal(valid.status, 200);
      // ... and the address stays blocked for failing attempts.
      assert.equal((await from(app, address, '/v1/transactions', badKey())).status, 429);
      // Another address is unaffected.
      assert.equal((await from(app, '127.0.0.3', '/v1/transactions', badKey())).status, 401);

      if (store === 'redis') {
        const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 0 });
        try {
          const ttl = await client.pttl(`${prefix}:auth_failure:${address}`);
          assert.ok(ttl > 0 && ttl <= 60_000, `the address's counter expires with its window (ttl ${ttl})`);
        } finally {
          client.disconnect();
        }
      }
    });

    test('SPEC 8: without TRUST_PROXY, X-Forwarded-For is ignored: spoofing it does not escape the limit', async () => {
      const address = '127.0.0.8';
      let n = 0;
      // Each attempt claims another client address; all of them count against the connection's own.
      await exhaust(() =>
        from(app, address, '/v1/transactions', { ...badKey(), 'x-forwarded-for': `203.0.113.${++n}` }),
      );
      if (store === 'redis') {
        const keys = await failureKeys(prefix);
        assert.ok(keys.includes(`${prefix}:auth_failure:${address}`));
        assert.ok(
          !keys.some((k) => k.includes('203.0.113.')),
          'no failure counted under a forwarded address',
        );
      }
    });

    test('SPEC 5.6, 8: bad session tokens count the same way, and valid sessions and keys are still served', async () => {
      const address = '127.0.0.4';
      await exhaust(() => from(app, address, '/admin/transactions', badToken()));
      assert.equal((await from(app, address, '/admin/transactions', viewer)).status, 200);
      assert.equal((await from(app, address, '/v1/transactions', { 'x-api-key': key })).status, 200);
      // Bad keys from the address are refused too: one count per address, whatever the credential kind.
      assert.equal((await from(app, address, '/v1/transactions', badKey())).status, 429);
      assert.equal((await from(app, '127.0.0.5', '/admin/transactions', badToken())).status, 401);
    });

    test('a valid credential never counts as a failure', async () => {
      const address = '127.0.0.6';
      for (let i = 0; i < LIMIT * 2; i++) {
        assert.equal((await from(app, address, '/v1/transactions', { 'x-api-key': key })).status, 200);
      }
      assert.equal((await from(app, address, '/v1/transactions', badKey())).status, 401);
    });
  });

  describe(`Issue 23 item 2.2: behind a trusted proxy, failures count per forwarded client (${store} store)`, () => {
    const prefix = `calebe-test:${randomBytes(6).toString('hex')}`;
    // The proxy connects from 127.0.0.9; TRUST_PROXY names it, so its X-Forwarded-For is read.
    const PROXY = '127.0.0.9';
    const A = '198.51.100.10';
    const B = '198.51.100.20';
    let app: TestApp;
    let key: string;
    let otherKey: string;
    beforeAll(async () => {
      app = await startTestApp({
        AUTH_FAILURES_PER_MINUTE: String(LIMIT),
        TRUST_PROXY: PROXY,
        BCRYPT_COST: '4',
        ...(store === 'redis' ? { REDIS_URL, REDIS_KEY_PREFIX: prefix } : {}),
      });
      key = (await seedTenantAndKey(app.gateway.ctx, { scopes: ['transactions:read'] })).key;
      otherKey = (await seedTenantAndKey(app.gateway.ctx, { scopes: ['transactions:read'] })).key;
    });
    afterAll(async () => {
      await app.close();
      if (store === 'redis') await deleteKeys(prefix);
    });

    test('more than the limit of bad keys from A block neither a valid key from B nor one from A', async () => {
      const viaProxy = (client: string, headers: Record<string, string>) =>
        from(app, PROXY, '/v1/transactions', { ...headers, 'x-forwarded-for': client });
      await exhaust(() => viaProxy(A, badKey()));
      for (let i = 0; i < 20; i++) assert.equal((await viaProxy(A, badKey())).status, 429);

      assert.equal((await viaProxy(B, { 'x-api-key': otherKey })).status, 200);
      assert.equal((await viaProxy(A, { 'x-api-key': key })).status, 200);
      // B's failures are its own: its first bad key is a plain 401.
      assert.equal((await viaProxy(B, badKey())).status, 401);
      // A client in front of the proxy cannot choose its address: the proxy appends the real one, and only
      // the rightmost untrusted hop counts (A's spoofed leftmost entry is ignored).
      assert.equal((await viaProxy(`${B}, ${A}`, badKey())).status, 429);

      if (store === 'redis') {
        const keys = await failureKeys(prefix);
        assert.ok(keys.includes(`${prefix}:auth_failure:${A}`), 'failures counted under the client address');
        assert.ok(!keys.some((k) => k.endsWith(PROXY)), 'never under the proxy address');
      }
    });

    test('SPEC 8: the login limit (10 a minute) counts the forwarded client too, not the proxy', async () => {
      const login = async (client: string) => {
        const dispatcher = new Agent({ localAddress: PROXY });
        try {
          const res = await undiciRequest(`${app.baseUrl}/admin/sessions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
            body: JSON.stringify({ email: 'nobody@example.com', password: 'not the password at all' }),
            dispatcher,
          });
          const body = (await res.body.json()) as { error: { code: string } };
          return { status: res.statusCode, code: body.error.code };
        } finally {
          await dispatcher.close();
        }
      };
      const C = '198.51.100.30';
      for (let i = 0; i < 10; i++)
        assert.deepEqual(await login(C), { status: 401, code: 'invalid_credentials' });
      assert.deepEqual(await login(C), { status: 429, code: 'rate_limit_exceeded' });
      assert.deepEqual(await login('198.51.100.40'), { status: 401, code: 'invalid_credentials' });
    });

    test('a connection from an address not in TRUST_PROXY is counted under its own address', async () => {
      const direct = '127.0.0.10';
      await exhaust(() =>
        from(app, direct, '/v1/transactions', { ...badKey(), 'x-forwarded-for': '198.51.100.99' }),
      );
      assert.equal(
        (await from(app, PROXY, '/v1/transactions', { ...badKey(), 'x-forwarded-for': '198.51.100.99' }))
          .status,
        401,
        'the forwarded address it claimed was never blocked',
      );
    });
  });
}

describe('TRUST_PROXY configuration (issue 23 item 2.2)', () => {
  test('unset, empty or false trusts no proxy; a list of proxy addresses and ranges is taken', () => {
    assert.equal(loadConfig({}).TRUST_PROXY, false);
    assert.equal(loadConfig({ TRUST_PROXY: '' }).TRUST_PROXY, false);
    assert.equal(loadConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY, false);
    assert.deepEqual(loadConfig({ TRUST_PROXY: ' 10.0.0.5, 10.1.0.0/16 ,loopback,fd00::/8' }).TRUST_PROXY, [
      '10.0.0.5',
      '10.1.0.0/16',
      'loopback',
      'fd00::/8',
    ]);
  });

  test('true (trust anyone), a hop count and anything not an address or range stop the start', () => {
    for (const bad of ['true', '1', '2', 'proxy.example.com', '10.0.0.0/33', '10.0.0.1/8/1', '*', ',']) {
      assert.throws(() => loadConfig({ TRUST_PROXY: bad }), ConfigError, bad);
    }
  });
});
