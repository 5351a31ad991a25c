import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { z } from 'zod';
import type { Gateway } from '../../src/app.ts';
import type { RateLimiter } from '../../src/commands/context.ts';
import { dataEnvelope } from '../../src/contract/envelopes.ts';
import { apiKeyPrincipal } from '../../src/http/auth.ts';
import { ApiError } from '../../src/http/errors.ts';
import { createMemoryRateLimiter, createRedisRateLimiter, LIMITS } from '../../src/http/rate-limit.ts';
import { seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';

/** A documented test-only route behind an API key, so the per-actor limit runs on the real request path. */
function limitedRoute(gateway: Gateway) {
  gateway.http.get(
    '/test/limited',
    {
      config: { access: { auth: 'api_key', scopes: ['transactions:read'] } },
      schema: { response: { 200: dataEnvelope(z.object({ actor: z.string() })) } },
    },
    async (request) => ({ data: { actor: apiKeyPrincipal(request).actor } }),
  );
}

async function seedKey(app: TestApp) {
  return seedTenantAndKey(app.gateway.ctx, { scopes: ['transactions:read'] });
}

function callLimited(app: TestApp, key: string) {
  return app.request('GET', '/test/limited', { headers: { 'x-api-key': key } });
}

/** Spends a key's whole minute: LIMITS.api.points requests, all accepted (in small concurrent batches). */
async function spendMinute(app: TestApp, key: string): Promise<void> {
  for (let sent = 0; sent < LIMITS.api.points; sent += 20) {
    const batch = Math.min(20, LIMITS.api.points - sent);
    const statuses = await Promise.all(
      Array.from({ length: batch }, async () => (await callLimited(app, key)).status),
    );
    assert.deepEqual(statuses, Array(batch).fill(200), `requests ${sent + 1} to ${sent + batch}`);
  }
}

/** Polls `check` until it returns true, at most `timeoutMs`; the loop is bounded by the deadline. */
async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`${what}: not within ${timeoutMs} ms`);
}

async function expectApiError(promise: Promise<void>, code: string): Promise<void> {
  await assert.rejects(promise, (error) => error instanceof ApiError && error.code === code);
}

/** Removes only the keys under this file's own prefix (never FLUSHDB / FLUSHALL: Redis is shared). */
async function deleteKeys(url: string, prefix: string): Promise<void> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await client.connect();
    let cursor = '0';
    for (let round = 0; round < 1_000; round++) {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      if (keys.length > 0) await client.del(...keys);
      cursor = next;
      if (cursor === '0') break;
    }
  } finally {
    client.disconnect();
  }
}

describe('Rate limits, in-process store (SPEC 8)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({}, limitedRoute);
  });
  afterAll(() => app.close());

  test('SPEC 8: the 121st request of one key within a minute is 429 rate_limit_exceeded; another key is unaffected', async () => {
    const [a, b] = [await seedKey(app), await seedKey(app)];
    await spendMinute(app, a.key);
    const limited = await callLimited(app, a.key);
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error.code, 'rate_limit_exceeded');
    const other = await callLimited(app, b.key);
    assert.equal(other.status, 200);
    assert.equal(other.body.data.actor, `api_key:${b.keyId}`);
  });

  test('SPEC 8: 10 login attempts per minute per address', async () => {
    const limiter = createMemoryRateLimiter();
    for (let i = 0; i < LIMITS.login.points; i++) await limiter.consume('login', '192.0.2.10');
    await expectApiError(limiter.consume('login', '192.0.2.10'), 'rate_limit_exceeded');
    await limiter.consume('login', '192.0.2.11');
    // The login bucket is separate from the per-actor API bucket.
    await limiter.consume('api', '192.0.2.10');
  });
});

describe('Rate limits, Redis store shared by instances (SPEC 8, DESIGN runtime)', () => {
  const prefix = `calebe-test:${randomBytes(6).toString('hex')}`;
  let app: TestApp;
  let otherInstance: RateLimiter;
  beforeAll(async () => {
    app = await startTestApp({ REDIS_URL, REDIS_KEY_PREFIX: prefix }, limitedRoute);
    otherInstance = createRedisRateLimiter({ url: REDIS_URL, keyPrefix: prefix });
    await eventually('Redis answers', async () => (await app.request('GET', '/ready')).status === 200);
  });
  afterAll(async () => {
    await otherInstance?.close();
    await app?.close();
    await deleteKeys(REDIS_URL, prefix);
  });

  test('SPEC 8: the 121st request of one key is 429 against Redis; another key is unaffected', async () => {
    const [a, b] = [await seedKey(app), await seedKey(app)];
    await spendMinute(app, a.key);
    const limited = await callLimited(app, a.key);
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error.code, 'rate_limit_exceeded');
    assert.equal((await callLimited(app, b.key)).status, 200);

    // Another gateway instance on the same Redis sees the same count.
    await expectApiError(otherInstance.consume('api', `api_key:${a.keyId}`), 'rate_limit_exceeded');
    await otherInstance.consume('api', `api_key:${b.keyId}`);

    // Keys name the actor by id, never by secret, and expire with the window.
    const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 0 });
    try {
      const keys = await client.keys(`${prefix}:*`);
      assert.ok(keys.includes(`${prefix}:api:api_key:${a.keyId}`), keys.join(', '));
      assert.ok(!keys.some((k) => k.includes(a.key) || k.includes(b.key)), 'no secret in a Redis key');
      const ttl = await client.pttl(`${prefix}:api:api_key:${a.keyId}`);
      assert.ok(ttl > 0 && ttl <= LIMITS.api.duration * 1000, `ttl ${ttl}`);
    } finally {
      client.disconnect();
    }
  });

  test('SPEC 8: 10 login attempts per minute per address against Redis', async () => {
    for (let i = 0; i < LIMITS.login.points; i++) await otherInstance.consume('login', '198.51.100.7');
    await expectApiError(otherInstance.consume('login', '198.51.100.7'), 'rate_limit_exceeded');
    await otherInstance.consume('login', '198.51.100.8');
  });
});

describe('Rate limits fail closed when Redis is down (SPEC 7 rate_limiter_unavailable, 4.14)', () => {
  let app: TestApp;
  beforeAll(async () => {
    // Nothing listens on port 1: every connection attempt is refused.
    app = await startTestApp({ REDIS_URL: 'redis://127.0.0.1:1' }, limitedRoute);
  });
  afterAll(() => app.close());

  // No timing assertion (a shared machine makes them flaky): the answer itself shows access failed closed.
  test('SPEC 7: a request is refused with 503 rate_limiter_unavailable', async () => {
    const { key } = await seedKey(app);
    const res = await callLimited(app, key);
    assert.equal(res.status, 503);
    assert.equal(res.body.error.code, 'rate_limiter_unavailable');
  });

  test('SPEC 4.14: /ready is 503 not_ready naming the rate-limit store; /health still answers', async () => {
    const ready = await app.request('GET', '/ready');
    assert.equal(ready.status, 503);
    assert.equal(ready.body.error.code, 'not_ready');
    assert.match(ready.body.error.message, /rate_limiter/);
    assert.doesNotMatch(ready.body.error.message, /database/);
    assert.equal((await app.request('GET', '/health')).status, 200);
  });
});

/** A throwaway redis-server on a spare port, so the test can stop and restart it. */
class ScratchRedis {
  readonly dir = mkdtempSync(join(tmpdir(), 'calebe-redis-'));
  constructor(readonly port: number) {}

  get url() {
    return `redis://127.0.0.1:${this.port}`;
  }

  start(): void {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    const files = ['--dir', this.dir, '--pidfile', join(this.dir, 'redis.pid')];
    const logs = ['--logfile', join(this.dir, 'redis.log'), '--daemonize', 'yes'];
    const result = spawnSync('redis-server', [...args, ...files, ...logs], { timeout: 5_000 });
    assert.equal(result.status, 0, `redis-server did not start: ${result.stderr}`);
  }

  stop(): void {
    this.signal('SIGCONT');
    spawnSync('redis-cli', ['-p', String(this.port), 'shutdown', 'nosave'], { timeout: 5_000 });
  }

  /** SIGSTOP freezes the server with its sockets open: the worst outage, where replies never come. */
  signal(signal: 'SIGSTOP' | 'SIGCONT'): void {
    let pid: number;
    try {
      pid = Number(readFileSync(join(this.dir, 'redis.pid'), 'utf8').trim());
    } catch {
      return; // not running
    }
    if (Number.isInteger(pid) && pid > 0) {
      try {
        process.kill(pid, signal);
      } catch {
        // already gone
      }
    }
  }

  answers(): boolean {
    const result = spawnSync('redis-cli', ['-p', String(this.port), 'ping'], { timeout: 2_000 });
    return result.status === 0 && String(result.stdout).trim() === 'PONG';
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function sparePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  assert.ok(address && typeof address === 'object');
  return address.port;
}

describe('Rate limits recover when Redis comes back (SPEC 7 rate_limiter_unavailable, DESIGN runtime)', () => {
  let redis: ScratchRedis;
  let app: TestApp | undefined;
  beforeAll(async () => {
    redis = new ScratchRedis(await sparePort());
    redis.start();
    await eventually('scratch redis starts', async () => redis.answers());
  });
  afterAll(async () => {
    try {
      await app?.close();
    } finally {
      // Always stop the scratch server, whatever happened above.
      redis.stop();
      redis.remove();
    }
  });

  test('SPEC 7: 200 while up, 503 quickly while frozen or down, 200 again after Redis restarts', async () => {
    app = await startTestApp({ REDIS_URL: redis.url }, limitedRoute);
    const running = app;
    const { key } = await seedKey(running);
    await eventually(
      'ready with Redis up',
      async () => (await running.request('GET', '/ready')).status === 200,
    );
    assert.equal((await callLimited(running, key)).status, 200);

    // Frozen: connected, but no reply ever comes. Only the command timeout can turn that into an answer.
    redis.signal('SIGSTOP');
    try {
      const frozen = await callLimited(running, key);
      assert.equal(frozen.status, 503);
      assert.equal(frozen.body.error.code, 'rate_limiter_unavailable');
      const notReady = await running.request('GET', '/ready');
      assert.equal(notReady.status, 503);
      assert.match(notReady.body.error.message, /rate_limiter/);
    } finally {
      redis.signal('SIGCONT');
    }
    await eventually('thawed', async () => (await callLimited(running, key)).status === 200);

    redis.stop();
    await eventually('scratch redis stops', async () => !redis.answers());
    const down = await callLimited(running, key);
    assert.equal(down.status, 503);
    assert.equal(down.body.error.code, 'rate_limiter_unavailable');
    const notReady = await running.request('GET', '/ready');
    assert.equal(notReady.status, 503);
    assert.equal(notReady.body.error.code, 'not_ready');

    redis.start();
    // The client reconnects on its own (backoff capped at REDIS_TIMEOUTS.maxReconnectDelayMs).
    await eventually('requests accepted again', async () => (await callLimited(running, key)).status === 200);
    assert.equal((await running.request('GET', '/ready')).status, 200);
  });
});
