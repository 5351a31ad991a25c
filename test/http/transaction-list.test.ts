import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { SCOPES } from '../../src/aggregates/access.ts';
import { issueApiKey } from '../../src/commands/api-keys.ts';
import { createCostCenter } from '../../src/commands/cost-centers.ts';
import { createUser, identityDeps } from '../../src/commands/users.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, assertError, bearer, logIn, PASSWORD } from '../support/admin.ts';
import { pixBody } from '../support/charges.ts';
import { commandDeps, type SeededKey, seedChildTenant, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

/** SPEC 4.3 (list), 2.1 (list envelope), 2.2 (Transaction), 5.3 (scopes), 5.7 (roles): GET /v1/transactions. */

const SECRET = 'list-test-document-signing-secret-0123456789';
const metadata = { actor: 'system:test', request_id: 'req_test' };
let app: TestApp;
let parent: SeededKey;
let child: SeededKey;
let outsider: SeededKey;
let parentLive: string;
let noRead: string;
let costCenterId: string;
let counter = 0;
const ids = { pixA1: '', pixA2: '', boleto: '', childPix: '', outsiderPix: '', live: '' };

const key = (k: string) => ({ 'x-api-key': k });

async function charge(k: string, path: '/v1/pix' | '/v1/boleto', json: unknown): Promise<string> {
  const res = await app.request('POST', path, {
    headers: { ...key(k), 'idempotency-key': `list-${++counter}` },
    json,
  });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id;
}

function boletoBody(reference: string) {
  const due = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
  return { ...pixBody({ reference }), boleto: { due_date: due } };
}

function list(k: string, query = '') {
  return app.request('GET', `/v1/transactions${query}`, { headers: key(k) });
}

const idsOf = (body: { data: { id: string }[] }) => body.data.map((t) => t.id);

async function issue(tenantId: string, opts: { livemode?: boolean; scopes?: (typeof SCOPES)[number][] }) {
  const { key: secret } = await issueApiKey(
    commandDeps(app.gateway.ctx),
    {
      tenantId,
      livemode: opts.livemode ?? false,
      name: 'extra key',
      scopes: opts.scopes ?? SCOPES,
      accessProfile: 'standard',
      createdBy: 'system:test',
    },
    metadata,
  );
  return secret;
}

beforeAll(async () => {
  app = await startTestApp({
    DOCUMENT_SIGNING_SECRET: SECRET,
    ENABLE_SIMULATOR: 'true',
    BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL,
    BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
    BCRYPT_COST: '4',
  });
  parent = await seedTenantAndKey(app.gateway.ctx);
  child = await seedChildTenant(app.gateway.ctx, parent.tenantId);
  outsider = await seedTenantAndKey(app.gateway.ctx);
  parentLive = await issue(parent.tenantId, { livemode: true });
  noRead = await issue(parent.tenantId, { scopes: SCOPES.filter((s) => s !== 'transactions:read') });
  const cc = await createCostCenter(
    commandDeps(app.gateway.ctx),
    { tenantId: parent.tenantId, name: 'Marketing', idempotencyKey: 'cc-list', route: '/v1/cost-centers' },
    metadata,
  );
  costCenterId = cc.record.id;
  // Creation order is the expected order reversed (newest first).
  ids.pixA1 = await charge(parent.key, '/v1/pix', pixBody({ reference: 'ref-a' }));
  ids.pixA2 = await charge(
    parent.key,
    '/v1/pix',
    pixBody({ reference: 'ref-a', cost_center_id: costCenterId }),
  );
  ids.boleto = await charge(parent.key, '/v1/boleto', boletoBody('ref-b'));
  ids.childPix = await charge(child.key, '/v1/pix', pixBody({ reference: 'ref-c' }));
  ids.outsiderPix = await charge(outsider.key, '/v1/pix', pixBody({ reference: 'ref-o' }));
  ids.live = await charge(parentLive, '/v1/pix', pixBody({ reference: 'ref-live' }));
  // The status filter needs a second status; the read model is set directly (no provider callback here).
  await app.gateway.ctx.db
    .updateTable('transactions')
    .set({ status: 'paid' })
    .where('id', '=', ids.pixA1)
    .execute();
});
afterAll(() => app.close());

describe('GET /v1/transactions (SPEC 4.3, 2.1, 2.2)', () => {
  test('SPEC 4.3/2.1: default is the key tenant only, newest first, list envelope with count = page size', async () => {
    const res = await list(parent.key);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(idsOf(res.body), [ids.boleto, ids.pixA2, ids.pixA1]);
    assert.deepEqual(res.body.meta, { limit: 50, offset: 0, count: 3 });
    const linked = res.body.data.find((t: { id: string }) => t.id === ids.pixA2);
    assert.equal(linked.cost_center_name, 'Marketing');
    assert.match(linked.document_url, /\/cobranca\//);
  });

  test('SPEC 4.3: limit clamps to 100, offset pages, limit 0 and negative offset are 422', async () => {
    const clamped = await list(parent.key, '?limit=500');
    assert.equal(clamped.status, 200, clamped.text);
    assert.equal(clamped.body.meta.limit, 100);
    const page1 = await list(parent.key, '?limit=2');
    assert.deepEqual(idsOf(page1.body), [ids.boleto, ids.pixA2]);
    assert.equal(page1.body.meta.count, 2);
    const page2 = await list(parent.key, '?limit=2&offset=2');
    assert.deepEqual(idsOf(page2.body), [ids.pixA1]);
    assert.deepEqual(page2.body.meta, { limit: 2, offset: 2, count: 1 });
    const past = await list(parent.key, '?offset=10');
    assert.deepEqual(past.body.data, []);
    assertError(await list(parent.key, '?limit=0'), 422, 'validation_error');
    assertError(await list(parent.key, '?offset=-1'), 422, 'validation_error');
    assertError(await list(parent.key, '?limit=abc'), 422, 'validation_error');
  });

  test('SPEC 4.3: status, method, reference and cost_center_id (id and unassigned) filters', async () => {
    assert.deepEqual(idsOf((await list(parent.key, '?status=paid')).body), [ids.pixA1]);
    assert.deepEqual(idsOf((await list(parent.key, '?status=pending&method=pix')).body), [ids.pixA2]);
    assert.deepEqual(idsOf((await list(parent.key, '?method=boleto')).body), [ids.boleto]);
    assert.deepEqual(idsOf((await list(parent.key, '?method=credit_card')).body), []);
    assert.deepEqual(idsOf((await list(parent.key, '?reference=ref-a')).body), [ids.pixA2, ids.pixA1]);
    assert.deepEqual(idsOf((await list(parent.key, '?reference=ref-')).body), []);
    assert.deepEqual(idsOf((await list(parent.key, `?cost_center_id=${costCenterId}`)).body), [ids.pixA2]);
    assert.deepEqual(idsOf((await list(parent.key, '?cost_center_id=unassigned')).body), [
      ids.boleto,
      ids.pixA1,
    ]);
    for (const bad of [
      '?status=done',
      '?method=card',
      '?include_descendants=1',
      '?include_descendants=yes',
      '?status=paid&status=pending',
      '?tenant_id=',
      '?offset=abc',
      '?stauts=paid',
    ]) {
      assertError(await list(parent.key, bad), 422, 'validation_error');
    }
  });

  test('SPEC 4.3/5.2: mode isolation: a test key never sees live records and a live key never sees test ones', async () => {
    const testList = idsOf((await list(parent.key, '?include_descendants=true&limit=100')).body);
    assert.ok(!testList.includes(ids.live));
    const liveList = await list(parentLive, '?include_descendants=true');
    assert.equal(liveList.status, 200, liveList.text);
    assert.deepEqual(idsOf(liveList.body), [ids.live]);
    assert.equal(liveList.body.data[0].livemode, true);
  });

  test('SPEC 4.3: include_descendants and tenant_id within the tree; outside is 404 not_found', async () => {
    assert.deepEqual(idsOf((await list(parent.key, '?include_descendants=true')).body), [
      ids.childPix,
      ids.boleto,
      ids.pixA2,
      ids.pixA1,
    ]);
    assert.deepEqual(idsOf((await list(parent.key, `?tenant_id=${child.tenantId}`)).body), [ids.childPix]);
    assert.deepEqual(
      idsOf((await list(parent.key, `?tenant_id=${parent.tenantId}&include_descendants=false`)).body),
      [ids.boleto, ids.pixA2, ids.pixA1],
    );
    // A child key cannot climb to its parent; nobody reaches another tree; unknown ids are 404 as well.
    assertError(await list(child.key, `?tenant_id=${parent.tenantId}`), 404, 'not_found');
    assertError(await list(parent.key, `?tenant_id=${outsider.tenantId}`), 404, 'not_found');
    assertError(await list(parent.key, '?tenant_id=ten_missing'), 404, 'not_found');
    assert.deepEqual(idsOf((await list(child.key, '?include_descendants=true')).body), [ids.childPix]);
  });

  test('SPEC 5.3: no key is 401; a key without transactions:read is 403 insufficient_scope', async () => {
    assertError(await app.request('GET', '/v1/transactions'), 401, 'unauthorized');
    assertError(await list(noRead), 403, 'insufficient_scope');
  });
});

describe('GET /admin/transactions (SPEC 4.3 admin scope, 5.7)', () => {
  let superAdmin: Record<string, string>;
  let parentAdmin: Record<string, string>;
  let childViewer: Record<string, string>;

  beforeAll(async () => {
    const deps = identityDeps(app.gateway.ctx);
    await createUser(
      deps,
      {
        email: 'list-admin@example.com',
        password: PASSWORD,
        role: 'tenant_admin',
        tenant_id: parent.tenantId,
      },
      metadata,
    );
    await createUser(
      deps,
      { email: 'list-viewer@example.com', password: PASSWORD, role: 'viewer', tenant_id: child.tenantId },
      metadata,
    );
    superAdmin = bearer(await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD));
    parentAdmin = bearer(await logIn(app, 'list-admin@example.com'));
    childViewer = bearer(await logIn(app, 'list-viewer@example.com'));
  });

  const adminList = (headers: Record<string, string>, query = '') =>
    app.request('GET', `/admin/transactions${query}`, { headers });

  test('SPEC 5.7: super_admin sees every tenant; livemode defaults to true (production)', async () => {
    const live = await adminList(superAdmin);
    assert.equal(live.status, 200, live.text);
    assert.deepEqual(idsOf(live.body), [ids.live]);
    const testMode = idsOf((await adminList(superAdmin, '?livemode=false')).body);
    for (const id of [ids.outsiderPix, ids.childPix, ids.boleto, ids.pixA2, ids.pixA1]) {
      assert.ok(testMode.includes(id), id);
    }
    assertError(await adminList(superAdmin, '?livemode=1'), 422, 'validation_error');
    assertError(await adminList(superAdmin, '?include_descendants=no'), 422, 'validation_error');
  });

  test('SPEC 5.7: a tenant_admin reads its tree (children included by default), never another tree', async () => {
    assert.deepEqual(idsOf((await adminList(parentAdmin, '?livemode=false')).body), [
      ids.childPix,
      ids.boleto,
      ids.pixA2,
      ids.pixA1,
    ]);
    assert.deepEqual(
      idsOf((await adminList(parentAdmin, '?livemode=false&include_descendants=false')).body),
      [ids.boleto, ids.pixA2, ids.pixA1],
    );
    assert.deepEqual(
      idsOf((await adminList(parentAdmin, `?livemode=false&tenant_id=${child.tenantId}`)).body),
      [ids.childPix],
    );
    assertError(await adminList(parentAdmin, `?tenant_id=${outsider.tenantId}`), 404, 'not_found');
  });

  test('SPEC 5.7: a viewer reads only its own subtree; its parent is 404; no session is 401', async () => {
    assert.deepEqual(idsOf((await adminList(childViewer, '?livemode=false')).body), [ids.childPix]);
    assert.deepEqual(idsOf((await adminList(childViewer)).body), []);
    assertError(await adminList(childViewer, `?tenant_id=${parent.tenantId}`), 404, 'not_found');
    assertError(await app.request('GET', '/admin/transactions'), 401, 'unauthorized');
  });
});
