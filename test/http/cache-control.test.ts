import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, idem, logIn, startAdminApp } from '../support/admin.ts';
import { pixBody } from '../support/charges.ts';
import { type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import type { TestApp, TestResponse } from '../support/http.ts';

/**
 * Issue 23 item 2.8 (e): answers that carry secrets (a new API key, a session token) or payers' data
 * (transactions, the panel's reads) are `Cache-Control: no-store` (RFC 9111 5.2.2.5), so no browser or
 * shared cache keeps them; errors of those routes too. The payer pages set their own header (issue 23
 * item 2.5): the page stays `no-store`.
 */
let app: TestApp;
let admin: Record<string, string>;
let seeded: SeededKey;

beforeAll(async () => {
  app = await startAdminApp({ ENABLE_SIMULATOR: 'true' });
  seeded = await seedTenantAndKey(app.gateway.ctx, { scopes: ['pix:write', 'transactions:read'] });
});
afterAll(() => app?.close());

function assertNoStore(res: TestResponse, what: string): void {
  assert.equal(
    res.headers.get('cache-control'),
    'no-store',
    `${what}: ${res.status} ${res.text.slice(0, 200)}`,
  );
}

describe('Cache-Control: no-store on answers with secrets or payer data (issue 23 item 2.8)', () => {
  test('the login answer (a session token) and the session routes', async () => {
    const login = await app.request('POST', '/admin/sessions', {
      json: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
    });
    assert.equal(login.status, 201, login.text);
    assertNoStore(login, 'POST /admin/sessions');
    admin = bearer(login.body.data.token as string);
    const wrong = await app.request('POST', '/admin/sessions', {
      json: { email: ADMIN_EMAIL, password: 'not the password at all' },
    });
    assert.equal(wrong.status, 401);
    assertNoStore(wrong, 'a refused login');
  });

  test('an API key creation answer (the secret, shown once) and the key list', async () => {
    admin ??= bearer(await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD));
    const created = await app.request('POST', '/admin/api-keys', {
      headers: { ...admin, ...idem() },
      json: { tenant_id: seeded.tenantId, mode: 'test', scopes: ['pix:write'], name: 'Cache test' },
    });
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.data.key as string, /^clb_test_/);
    assertNoStore(created, 'POST /admin/api-keys');
    assertNoStore(await app.request('GET', '/admin/api-keys', { headers: admin }), 'GET /admin/api-keys');
  });

  test('transactions through the public API and the panel, and a refused credential', async () => {
    admin ??= bearer(await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD));
    const pix = await app.request('POST', '/v1/pix', {
      headers: { 'x-api-key': seeded.key, ...idem() },
      json: pixBody(),
    });
    assert.equal(pix.status, 201, pix.text);
    assertNoStore(pix, 'POST /v1/pix');
    const id = pix.body.data.id as string;
    const key = { 'x-api-key': seeded.key };
    assertNoStore(
      await app.request('GET', `/v1/transactions/${id}`, { headers: key }),
      'GET /v1/transactions/{id}',
    );
    assertNoStore(await app.request('GET', '/v1/transactions', { headers: key }), 'GET /v1/transactions');
    assertNoStore(
      await app.request('GET', '/admin/transactions', { headers: admin }),
      'GET /admin/transactions',
    );
    assertNoStore(
      await app.request('GET', `/admin/transactions/${id}/events`, { headers: admin }),
      'GET /admin/transactions/{id}/events',
    );
    assertNoStore(await app.request('GET', '/admin/users', { headers: admin }), 'GET /admin/users');
    const refused = await app.request('GET', '/v1/transactions', {
      headers: { 'x-api-key': `${seeded.key}x` },
    });
    assert.equal(refused.status, 401);
    assertNoStore(refused, 'a 401');

    // The payer page keeps its own header: no-store as well (src/http/routes/charge-page.ts).
    const page = await app.request('GET', new URL(pix.body.data.document_url as string).pathname);
    assert.equal(page.status, 200);
    assertNoStore(page, 'the charge page');
  });
});
