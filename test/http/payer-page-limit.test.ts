import assert from 'node:assert/strict';
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

let app: TestApp;
let key: SeededKey;

beforeAll(async () => {
  app = await startTestApp({ ENABLE_SIMULATOR: 'true' });
  key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
});
afterAll(() => app.close());

describe('payer pages limited per client address (issue 23 item 2.5)', () => {
  test('120 requests a minute to the charge page and the PDF together, then 429 with the SPEC 7 envelope', async () => {
    // SPEC 8's figure for a key, applied to an address.
    assert.deepEqual(PAYER_PAGE_LIMIT, { points: 120, duration: 60 });
    const created = await app.request('POST', '/v1/pix', {
      headers: { 'x-api-key': key.key, 'idempotency-key': 'payer-page-limit-1' },
      json: pixBody(),
    });
    assert.equal(created.status, 201, created.text);
    const page = new URL(created.body.data.document_url).pathname;
    const id = created.body.data.id as string;

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
