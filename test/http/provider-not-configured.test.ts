import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { assertError } from '../support/admin.ts';
import { boletoBody, pixBody } from '../support/charges.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

/**
 * Issue 23 item 1.8: compose and .env.example start the gateway on DATABASE_URL with ENABLE_SIMULATOR=false,
 * so the test key `calebe bootstrap` prints gets `422 provider_not_configured` on its first charge. The code
 * stays (SPEC 7: no rule or enabled provider for the method); the message says what to set. Then the
 * gateway restarted as the message says serves the same key.
 */
let db: TestDatabase;
let app: TestApp;
let demo: SeededKey;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startTestApp({ ENABLE_SIMULATOR: 'false' }, undefined, db);
  demo = await seedTenantAndKey(app.gateway.ctx, { livemode: false, tenantName: 'Demo' });
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const charge = (target: TestApp, path: '/v1/pix' | '/v1/boleto', json: unknown) =>
  target.request('POST', path, {
    headers: { 'x-api-key': demo.key, 'idempotency-key': randomUUID() },
    json,
  });

const count = async (target: TestApp) =>
  Number(
    (
      await target.gateway.ctx.db
        .selectFrom('transactions')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('issue 23 item 1.8: provider_not_configured says what to set', () => {
  test('a test key with no rule and the simulator off: 422 provider_not_configured naming ENABLE_SIMULATOR=true and a routing rule; nothing stored', async () => {
    for (const [path, body] of [
      ['/v1/pix', pixBody()],
      ['/v1/boleto', boletoBody()],
    ] as const) {
      const res = await charge(app, path, body);
      assertError(res, 422, 'provider_not_configured');
      const message: string = res.body.error.message;
      assert.match(message, /ENABLE_SIMULATOR=true/, `${path}: ${message}`);
      assert.match(message, /routing rule/, `${path}: ${message}`);
      assert.match(message, /POST \/admin\/rules\b/, `${path}: ${message}`);
    }
    assert.equal(await count(app), 0);
  });

  test('started again with ENABLE_SIMULATOR=true, as the message says, the same test key charges', async () => {
    await app.close();
    app = await startTestApp({ ENABLE_SIMULATOR: 'true' }, undefined, db);
    const res = await charge(app, '/v1/pix', pixBody());
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.simulated, true);
    assert.equal(res.body.data.livemode, false);
  });
});
