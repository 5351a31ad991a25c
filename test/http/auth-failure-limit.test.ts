import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Agent, request as undiciRequest } from 'undici';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { API_KEY_PREFIX } from '../../src/crypto/secrets.ts';
import { seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const LIMIT = 5;

/**
 * Issue 12 item 2 (OWASP API4): every unknown API key or session token costs a database lookup, so failed
 * authentication is limited per direct connection address (SPEC 8 keeps X-Forwarded-For untrusted). Past
 * AUTH_FAILURES_PER_MINUTE failures the address gets 429 rate_limit_exceeded whatever it sends: even a
 * valid credential from it is refused until the window passes (since issue 14 the block is read after
 * the lookup, with the actor's count, in one store round trip). Other addresses are unaffected.
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

for (const store of ['redis', 'memory'] as const) {
  describe(`Issue 12 item 2: failed authentication is limited per address (${store} store; SPEC 7, 8)`, () => {
    const prefix = `calebe-test:${randomBytes(6).toString('hex')}`;
    let app: TestApp;
    let key: string;
    beforeAll(async () => {
      app = await startTestApp({
        AUTH_FAILURES_PER_MINUTE: String(LIMIT),
        ...(store === 'redis' ? { REDIS_URL, REDIS_KEY_PREFIX: prefix } : {}),
      });
      key = (await seedTenantAndKey(app.gateway.ctx, { scopes: ['transactions:read'] })).key;
    });
    afterAll(async () => {
      await app.close();
      if (store === 'redis') await deleteKeys(prefix);
    });

    test('SPEC 8: past the limit of bad keys an address gets 429 whatever its credential, even a valid key', async () => {
      const address = '127.0.0.2';
      assert.equal((await from(app, address, '/v1/transactions', { 'x-api-key': key })).status, 200);
      for (let i = 0; i < LIMIT; i++) {
        const res = await from(app, address, '/v1/transactions', badKey());
        assert.equal(res.status, 401, `failure ${i + 1}`);
        assert.equal(res.body.error?.code, 'unauthorized');
      }
      const blocked = await from(app, address, '/v1/transactions', badKey());
      assert.equal(blocked.status, 429);
      assert.equal(blocked.body.error?.code, 'rate_limit_exceeded');
      assert.equal(blocked.body.error?.request_id, blocked.requestId);
      // Blocked whatever the credential: a valid key from the blocked address is refused too.
      const valid = await from(app, address, '/v1/transactions', { 'x-api-key': key });
      assert.equal(valid.status, 429);
      assert.equal(valid.body.error?.code, 'rate_limit_exceeded');
      // A spoofed X-Forwarded-For is not a new address (SPEC 8).
      const spoofed = await from(app, address, '/v1/transactions', {
        'x-api-key': key,
        'x-forwarded-for': '203.0.113.77',
      });
      assert.equal(spoofed.status, 429);
      // Another address is unaffected.
      assert.equal((await from(app, '127.0.0.3', '/v1/transactions', { 'x-api-key': key })).status, 200);

      if (store === 'redis') {
        const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 0 });
        try {
          const ttl = await client.pttl(`${prefix}:auth_failure:${address}`);
          assert.ok(ttl > 0 && ttl <= 60_000, `the address's counter expires with its window (ttl ${ttl})`);
          const keys = await client.keys(`${prefix}:*`);
          assert.ok(!keys.some((k) => k.includes('127.0.0.3')), 'no failure counted for the other address');
        } finally {
          client.disconnect();
        }
      }
    });

    test('SPEC 5.6, 8: bad session tokens count the same way, and block API keys from that address', async () => {
      const address = '127.0.0.4';
      for (let i = 0; i < LIMIT; i++) {
        const res = await from(app, address, '/admin/transactions', badToken());
        assert.equal(res.status, 401, `failure ${i + 1}`);
      }
      assert.equal((await from(app, address, '/admin/transactions', badToken())).status, 429);
      assert.equal((await from(app, address, '/v1/transactions', { 'x-api-key': key })).status, 429);
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
}
