import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { z } from 'zod';
import { SCOPES } from '../../src/aggregates/access.ts';
import { createGateway, type Gateway } from '../../src/app.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { dataEnvelope } from '../../src/contract/envelopes.ts';
import { sha256Hex } from '../../src/crypto/secrets.ts';
import { apiKeyPrincipal } from '../../src/http/auth.ts';
import { createLogger } from '../../src/logger.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { testProjectionMode } from '../support/http.ts';

const BIN = 'bin/calebe.js';
const ADMIN = {
  BOOTSTRAP_ADMIN_EMAIL: 'demo-admin@example.com',
  BOOTSTRAP_ADMIN_PASSWORD: 'demo admin password',
};

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BCRYPT_COST: '4',
    DOCUMENT_SIGNING_SECRET: 'test-document-signing-secret-for-this-suite-0123',
    ...extra,
  };
  for (const k of ['BOOTSTRAP_ADMIN_EMAIL', 'BOOTSTRAP_ADMIN_PASSWORD', 'REDIS_URL', 'EVENTSTORE_URL']) {
    if (!(k in extra)) delete env[k];
  }
  return env;
}

function bootstrap(env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'bootstrap'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

describe('npx calebe bootstrap (issue 4 item 8; SPEC 2.7, 5.2, 5.3)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  let testKey = '';
  let liveKey = '';
  let tenantId = '';

  test('SPEC 2.7, 5.2: the first run creates Demo with a test and a live key of every scope and prints them once', async () => {
    const { code, out } = await bootstrap(cleanEnv({ DATABASE_URL: db.url, ...ADMIN }));
    assert.equal(code, 0, out);
    tenantId = /Demo tenant: Demo \((ten_\w+)\)/.exec(out)?.[1] ?? '';
    testKey = /test key key_\w+: (clb_test_\S+)/.exec(out)?.[1] ?? '';
    liveKey = /live key key_\w+: (clb_live_\S+)/.exec(out)?.[1] ?? '';
    assert.ok(tenantId && testKey && liveKey, out);
    assert.match(out, /e-mail: +demo-admin@example\.com/);
    assert.ok(
      !out.includes(ADMIN.BOOTSTRAP_ADMIN_PASSWORD),
      'the password from the environment is not echoed',
    );

    const rows = await db.db.selectFrom('api_keys').selectAll().where('tenant_id', '=', tenantId).execute();
    assert.equal(rows.length, 2);
    const test = rows.find((r) => r.secret_sha256 === sha256Hex(testKey));
    const live = rows.find((r) => r.secret_sha256 === sha256Hex(liveKey));
    assert.equal(test?.livemode, false);
    assert.equal(live?.livemode, true);
    assert.deepEqual(test?.scopes, [...SCOPES]);
    assert.deepEqual(live?.scopes, [...SCOPES]);
    assert.equal(test?.access_profile, 'standard');
  });

  test('SPEC 2.7: a second run creates nothing and prints the prefixes, never a secret', async () => {
    const { code, out } = await bootstrap(cleanEnv({ DATABASE_URL: db.url, ...ADMIN }));
    assert.equal(code, 0, out);
    assert.match(out, new RegExp(`Demo \\(${tenantId}\\), already existed`));
    assert.match(out, /test key key_\w+ \(clb_test_.{4}…\) already exists/);
    assert.match(out, /live key key_\w+ \(clb_live_.{4}…\) already exists/);
    assert.match(out, /POST \/admin\/api-keys/);
    assert.ok(!out.includes(testKey) && !out.includes(liveKey));
    const n = await db.db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(n.n), 2);
    const tenants = await db.db.selectFrom('tenants').select('id').where('name', '=', 'Demo').execute();
    assert.equal(tenants.length, 1);
  });

  test('SPEC 5.1, 5.7: the printed test key authenticates, and the admin sees both keys in GET /admin/api-keys', async () => {
    const config = loadConfig({
      DATABASE_URL: db.url,
      PORT: '0',
      BCRYPT_COST: '4',
      DOCUMENT_SIGNING_SECRET: 'test-document-signing-secret-for-this-suite-0123',
      PROJECTIONS: testProjectionMode(),
    });
    const gateway: Gateway = await createGateway(config, createLogger('silent'));
    try {
      gateway.http.get(
        '/test/key',
        {
          config: { access: { auth: 'api_key' } },
          schema: {
            response: { 200: dataEnvelope(z.object({ tenant_id: z.string(), livemode: z.boolean() })) },
          },
        },
        async (request) => {
          const p = apiKeyPrincipal(request);
          return { data: { tenant_id: p.tenantId, livemode: p.livemode } };
        },
      );
      await gateway.http.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(gateway.http.server.address() as AddressInfo).port}`;
      const me = await fetch(`${base}/test/key`, { headers: { 'x-api-key': testKey } });
      assert.equal(me.status, 200);
      assert.deepEqual(((await me.json()) as { data: unknown }).data, {
        tenant_id: tenantId,
        livemode: false,
      });

      const login = await fetch(`${base}/admin/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          email: ADMIN.BOOTSTRAP_ADMIN_EMAIL,
          password: ADMIN.BOOTSTRAP_ADMIN_PASSWORD,
        }),
      });
      assert.equal(login.status, 201);
      const token = ((await login.json()) as { data: { token: string } }).data.token;
      const list = await fetch(`${base}/admin/api-keys?tenant_id=${tenantId}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(list.status, 200);
      const keys = ((await list.json()) as { data: { prefix: string; mode: string }[] }).data;
      assert.deepEqual(keys.map((k) => k.mode).sort(), ['live', 'test']);
      assert.ok(keys.some((k) => testKey.startsWith(k.prefix)));
    } finally {
      await gateway.close();
    }
  });

  test('without any administrator, it says how to get one', async () => {
    const fresh = await createTestDatabase();
    try {
      const { code, out } = await bootstrap(cleanEnv({ DATABASE_URL: fresh.url }));
      assert.equal(code, 0, out);
      assert.match(out, /none exists yet\. Set BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_PASSWORD/);
      assert.match(out, /test key key_\w+: clb_test_/);
    } finally {
      await fresh.drop();
    }
  });

  test('SPEC 2.2: with DATABASE_URL the gateway refuses to start without DOCUMENT_SIGNING_SECRET', async () => {
    const config = loadConfig({ DATABASE_URL: db.url, PORT: '0', BCRYPT_COST: '4' });
    await assert.rejects(createGateway(config, createLogger('silent')), (error: Error) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /DOCUMENT_SIGNING_SECRET/);
      return true;
    });
  });
});
