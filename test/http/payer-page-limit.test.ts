import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { PAYER_PAGE_LIMIT } from '../../src/http/payer-page-limit.ts';
import { pixBody } from '../support/charges.ts';
import { type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

/**
 * Issue 23 item 2.5: the payer pages (SPEC 2.2 `document_url` and its `boleto.pdf`) take no credential, so
 * they are limited per client address; past the limit the answer is `429 rate_limit_exceeded` in the SPEC 7
 * envelope. The API of a key is not limited by it. Every request here comes from 127.0.0.1.
 */

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';

let app: TestApp;
let key: SeededKey;

/** A simulated Pix of `app`'s tenant: its charge page path and id. */
async function chargePage(on: TestApp, with_: SeededKey, idempotencyKey: string) {
  const created = await on.request('POST', '/v1/pix', {
    headers: { 'x-api-key': with_.key, 'idempotency-key': idempotencyKey },
    json: pixBody(),
  });
  assert.equal(created.status, 201, created.text);
  return { page: new URL(created.body.data.document_url).pathname, id: created.body.data.id as string };
}

beforeAll(async () => {
  app = await startTestApp({ ENABLE_SIMULATOR: 'true' });
  key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
});
afterAll(() => app.close());

describe('payer pages limited per client address (issue 23 item 2.5)', () => {
  test('120 requests a minute to the charge page and the PDF together, then 429 with the SPEC 7 envelope', async () => {
    // SPEC 8's figure for a key, applied to an address.
    assert.deepEqual(PAYER_PAGE_LIMIT, { points: 120, duration: 60 });
    const { page, id } = await chargePage(app, key, 'payer-page-limit-1');

    // A simulated Pix has no boleto: its PDF link is the 404 page, which counts like any payer request.
    const statuses: number[] = [];
    for (let sent = 0; sent < PAYER_PAGE_LIMIT.points; sent += 20) {
      statuses.push(
        ...(await Promise.all(
          Array.from(
            { length: 20 },
            async (_, i) => (await app.request('GET', i % 4 === 0 ? `${page}/boleto.pdf` : page)).status,
          ),
        )),
      );
    }
    assert.equal(statuses.filter((s) => s === 200).length, 90);
    assert.equal(statuses.filter((s) => s === 404).length, 30);

    for (const path of [page, `${page}/boleto.pdf`, `/cobranca/${id}/not-a-signature`]) {
      const limited = await app.request('GET', path);
      assert.equal(limited.status, 429, path);
      assert.equal(limited.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.equal(limited.body.error.code, 'rate_limit_exceeded');
      assert.equal(typeof limited.body.error.message, 'string');
      assert.equal(limited.body.error.request_id, limited.headers.get('x-request-id'));
      assert.equal(limited.headers.get('cache-control'), 'no-store');
    }

    // The key's API is counted per key, not per address: not refused.
    const read = await app.request('GET', `/v1/transactions/${id}`, { headers: { 'x-api-key': key.key } });
    assert.equal(read.status, 200, read.text);
  });
});

describe('with REDIS_URL, every process counts one minute per address (issue 23 item 2.5)', () => {
  test('two API processes on one database and one Redis: 60 + 60 served, the next refused by either', async () => {
    const env = {
      ENABLE_SIMULATOR: 'true',
      REDIS_URL,
      REDIS_KEY_PREFIX: `payer-page-${randomBytes(6).toString('hex')}`,
    };
    const a = await startTestApp(env);
    const b = await startTestApp(env, undefined, a.db);
    try {
      const seeded = await seedTenantAndKey(a.gateway.ctx, { livemode: false });
      const { page } = await chargePage(a, seeded, 'payer-page-limit-redis');
      for (const on of [a, b]) {
        const statuses = await Promise.all(
          Array.from({ length: 60 }, async () => (await on.request('GET', page)).status),
        );
        assert.deepEqual(statuses, Array(60).fill(200));
      }
      for (const on of [a, b]) {
        const limited = await on.request('GET', page);
        assert.equal(limited.status, 429);
        assert.equal(limited.body.error.code, 'rate_limit_exceeded');
      }
    } finally {
      await b.close();
      await a.close();
    }
  });
});
