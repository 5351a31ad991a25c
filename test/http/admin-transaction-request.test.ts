import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { assertError, idem, roleTokens, startAdminApp } from '../support/admin.ts';
import { pixBody } from '../support/charges.ts';
import { seedChildTenant, seedTenantAndKey } from '../support/fixtures.ts';
import type { TestApp } from '../support/http.ts';

/**
 * Issue 12 item 6, SPEC 4.5: the panel alias GET /admin/transactions/{id}/request answers exactly what
 * GET /v1/transactions/{id}/request answers, under the panel's read rule (SPEC 5.7 "Read transactions"):
 * super_admin global, tenant_admin and viewer their own tree, anything else 404 not_found; a viewer's has no
 * payer personal data (issue 23 item 2.10).
 */
describe('GET /admin/transactions/{id}/request (SPEC 4.5, 5.7)', () => {
  let app: TestApp;
  let tokens: Awaited<ReturnType<typeof roleTokens>>;
  /** A charge of a child of the users' tenant, and one of another tree. */
  let own: { id: string; key: string };
  let foreign: { id: string; key: string };

  async function charge(key: string): Promise<string> {
    const res = await app.request('POST', '/v1/pix', {
      headers: { 'x-api-key': key, ...idem() },
      json: pixBody(),
    });
    assert.equal(res.status, 201, res.text);
    return res.body.data.id;
  }

  beforeAll(async () => {
    app = await startAdminApp({ ENABLE_SIMULATOR: 'true' });
    tokens = await roleTokens(app);
    const child = await seedChildTenant(app.gateway.ctx, tokens.tenantId);
    own = { key: child.key, id: await charge(child.key) };
    const other = await seedTenantAndKey(app.gateway.ctx);
    foreign = { key: other.key, id: await charge(other.key) };
  });
  afterAll(() => app.close());

  const read = (id: string, headers: Record<string, string>) =>
    app.request('GET', `/admin/transactions/${id}/request`, { headers });

  test('SPEC 4.5: every panel role reads a snapshot of its tree, identical to the public answer', async () => {
    const pub = await app.request('GET', `/v1/transactions/${own.id}/request`, {
      headers: { 'x-api-key': own.key },
    });
    assert.equal(pub.status, 200, pub.text);
    assert.equal(pub.body.data.transaction_id, own.id);
    assert.equal(pub.body.data.source, 'captured');
    for (const role of ['super_admin', 'tenant_admin'] as const) {
      const res = await read(own.id, tokens[role]);
      assert.equal(res.status, 200, `${role}: ${res.text}`);
      assert.deepEqual(res.body, pub.body, role);
    }
    // Issue 23 item 2.10: a viewer reads the snapshot as its transaction reads show a charge, without the payer.
    const viewer = await read(own.id, tokens.viewer);
    assert.equal(viewer.status, 200, viewer.text);
    assert.deepEqual(viewer.body.data, {
      ...pub.body.data,
      request: { ...pub.body.data.request, customer: null },
      provider_request: null,
    });
  });

  test('SPEC 5.7: another tree is 404 for tenant_admin and viewer, readable by super_admin', async () => {
    assertError(await read(foreign.id, tokens.tenant_admin), 404, 'not_found');
    assertError(await read(foreign.id, tokens.viewer), 404, 'not_found');
    const global = await read(foreign.id, tokens.super_admin);
    assert.equal(global.status, 200, global.text);
    assert.equal(global.body.data.transaction_id, foreign.id);
  });

  test('SPEC 4.4, 7: unknown and NUL ids are 404; no session is 401', async () => {
    assertError(await read('txn_unknown', tokens.super_admin), 404, 'not_found');
    assertError(await read('txn_%00', tokens.super_admin), 404, 'not_found');
    assertError(await read(own.id, {}), 401, 'unauthorized');
    assertError(await read(own.id, { 'x-api-key': own.key }), 401, 'unauthorized');
  });
});
