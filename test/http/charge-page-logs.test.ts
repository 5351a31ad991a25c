import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { idem } from '../support/admin.ts';
import { pixBody } from '../support/charges.ts';
import { seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

/**
 * Issue 12 item 3: the charge page URL (SPEC 2.2 `document_url`, `/cobranca/<id>/<signature>`) is a
 * capability: whoever has it sees the charge and the payer's name. Log lines keep the id and write the
 * signature as `[redacted]`, in request, response and error lines alike.
 */
describe('Issue 12 item 3: charge page signatures never reach the log (SPEC 2.2)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ ENABLE_SIMULATOR: 'true' });
  });
  afterAll(() => app.close());

  test('SPEC 2.2: fetching a charge page and its PDF logs /cobranca/<id>/[redacted]', async () => {
    const { key } = await seedTenantAndKey(app.gateway.ctx);
    const created = await app.request('POST', '/v1/pix', {
      headers: { 'x-api-key': key, ...idem() },
      json: pixBody(),
    });
    assert.equal(created.status, 201, created.text);
    const { id, document_url } = created.body.data as { id: string; document_url: string };
    const path = new URL(document_url).pathname;
    const signature = path.split('/')[3] ?? '';
    assert.ok(signature.length >= 16, path);

    const page = await app.request('GET', path);
    assert.equal(page.status, 200);
    const pdf = await app.request('GET', `${path}/boleto.pdf`);
    assert.equal(pdf.status, 404);
    const withQuery = await app.request('GET', `${path}?utm=1`);
    assert.equal(withQuery.status, 200);
    // A wrong signature is logged the same way: a near miss of a real one is as sensitive.
    const wrong = `${signature.slice(0, -2)}AA`;
    assert.equal((await app.request('GET', `/cobranca/${id}/${wrong}`)).status, 404);

    for (const secret of [signature, wrong]) {
      const leaking = app.logs.filter((l) => l.includes(secret));
      assert.deepEqual(leaking, [], 'no log line carries the signature');
    }
    const urls = app.logs.filter((l) => l.includes('/cobranca/'));
    assert.ok(urls.length >= 4, 'the page requests are logged');
    for (const line of urls) assert.ok(line.includes(`/cobranca/${id}/[redacted]`), line);
    assert.ok(app.logs.some((l) => l.includes(`/cobranca/${id}/[redacted]/boleto.pdf`)));
  });

  test('issue 23 item 2.8: /%63obranca/<id>/<signature> and other spellings the router reads as the page never log the signature', async () => {
    const { key } = await seedTenantAndKey(app.gateway.ctx);
    const created = await app.request('POST', '/v1/pix', {
      headers: { 'x-api-key': key, ...idem() },
      json: pixBody(),
    });
    assert.equal(created.status, 201, created.text);
    const { id, document_url } = created.body.data as { id: string; document_url: string };
    const signature = new URL(document_url).pathname.split('/')[3] ?? '';
    // Sent as typed (fetch keeps percent-escapes; the harness's OpenAPI check reads paths undecoded).
    const raw = async (path: string) => {
      const res = await fetch(`${app.baseUrl}${path}`);
      await res.arrayBuffer();
      return res;
    };
    // The router percent-decodes the path: this is the page itself (SPEC 2.2), served or refused.
    const encoded = await raw(`/%63obranca/${id}/${signature}`);
    assert.ok([200, 404].includes(encoded.status), String(encoded.status));
    const spellings = [
      `/%63%6F%62%72%61%6E%63%61/${id}/${signature}`,
      `/cobranca/${id}/%${signature.charCodeAt(0).toString(16)}${signature.slice(1)}`,
      `/COBRANCA/${id}/${signature}`,
      `//cobranca/${id}/${signature}`,
      `/cobranca/${id}//${signature}`,
      `/cobranca/${id}%2F${signature}`,
      `/cobranca/${id}/${signature}?s=${signature}`,
    ];
    for (const path of spellings) await raw(path);
    const rest = signature.slice(1);
    const leaking = app.logs.filter((l) => l.includes(signature) || l.includes(rest));
    assert.deepEqual(leaking, [], 'no log line carries the signature, whole or after its first character');
    const encodedLine = app.logs.find((l) => l.includes(encoded.headers.get('x-request-id') ?? 'none'));
    assert.ok(encodedLine?.includes(`/cobranca/${id}/[redacted]`), encodedLine);
  });
});
