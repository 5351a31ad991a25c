import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { SCOPES } from '../../src/aggregates/access.ts';
import { issueApiKey } from '../../src/commands/api-keys/issue/handler.ts';
import { createCostCenter } from '../../src/commands/cost-centers/create/handler.ts';
import { createUser } from '../../src/commands/users/create/handler.ts';
import { identityDeps } from '../../src/commands/users/identity-deps.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, assertError, bearer, logIn, PASSWORD } from '../support/admin.ts';
import { pixBody } from '../support/charges.ts';
import {
  commandDeps,
  driveCharge,
  type SeededKey,
  seedChildTenant,
  seedTenantAndKey,
} from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';
import { boletoArtifacts, noDiagnostics } from '../support/transactions.ts';

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

describe('the list item is the SPEC 2.2 view of GET /v1/transactions/{id} (issue 14, B3: the list statement)', () => {
  let own: SeededKey;
  let kid: SeededKey;
  const page: Record<string, string> = {};

  beforeAll(async () => {
    own = await seedTenantAndKey(app.gateway.ctx);
    kid = await seedChildTenant(app.gateway.ctx, own.tenantId);
    const deps = commandDeps(app.gateway.ctx);
    const sales = await createCostCenter(
      deps,
      {
        tenantId: own.tenantId,
        name: 'Vendas São Paulo',
        idempotencyKey: 'cc-view',
        route: '/v1/cost-centers',
      },
      metadata,
    );
    const kidCenter = await createCostCenter(
      deps,
      { tenantId: kid.tenantId, name: 'Filial', idempotencyKey: 'cc-view-kid', route: '/v1/cost-centers' },
      metadata,
    );
    page.pixCenter = await charge(own.key, '/v1/pix', pixBody({ cost_center_id: sales.record.id }));
    page.boleto = await charge(own.key, '/v1/boleto', boletoBody('ref-view-boleto'));
    // Issued by a provider (boleto URL, numbers, the boleto's Pix): one with its Pix deadline ahead and a
    // center, one past its deadline (the Pix code withheld, SPEC 2.2).
    const issued = async (id: string, pixExpiresAt: string, costCenterId: string | null) => {
      const artifacts = { ...boletoArtifacts(`ext_${id}`), boleto_pix_expires_at: pixExpiresAt };
      const over = { livemode: false, providerId: null, providerRequest: null, costCenterId };
      await driveCharge(
        app.gateway.ctx,
        id,
        'boleto_simulated',
        own.tenantId,
        [{ kind: 'record_issued', artifacts }],
        over,
      );
      return id;
    };
    page.boletoCenter = await issued(
      `txn_list_issued_${++counter}`,
      new Date(Date.now() + 86_400_000).toISOString(),
      sales.record.id,
    );
    page.boletoPixPast = await issued(`txn_list_issued_${++counter}`, '2026-03-11T02:59:59.000Z', null);
    // Paid, then refunded: status refunded, refund.status, paid_at.
    page.refunded = await charge(own.key, '/v1/pix', pixBody({ reference: 'ref-view-refund' }));
    const paid = await app.request('POST', `/v1/transactions/${page.refunded}/simulate`, {
      headers: key(own.key),
      json: { status: 'paid' },
    });
    assert.equal(paid.status, 200, paid.text);
    const refunded = await app.request('POST', `/v1/transactions/${page.refunded}/refund`, {
      headers: { ...key(own.key), 'idempotency-key': 'list-view-refund' },
    });
    assert.equal(refunded.status, 200, refunded.text);
    page.paidBoleto = await charge(own.key, '/v1/boleto', boletoBody('ref-view-paid-boleto'));
    const paidBoleto = await app.request('POST', `/v1/transactions/${page.paidBoleto}/simulate`, {
      headers: key(own.key),
      json: { status: 'paid' },
    });
    assert.equal(paidBoleto.status, 200, paidBoleto.text);
    // Unknown (the provider's answer lost): the Pix codes are withheld (SPEC 2.2).
    page.unknown = `txn_list_unknown_${++counter}`;
    await driveCharge(app.gateway.ctx, page.unknown, 'pix_test', own.tenantId, [
      { kind: 'record_uncertain', providerReference: null, diagnostics: noDiagnostics },
    ]);
    page.kid = await charge(kid.key, '/v1/pix', pixBody({ cost_center_id: kidCenter.record.id }));
    // The async lane: every read model caught up before the list reads it.
    await app.settle();
  });

  /** Each item equals, field for field and in the same order, the charge's GET by id (its stream's fold). */
  /** Newest first: the key's own tenant's charges of the fixture (read once beforeAll filled `page`). */
  const ownOrder = () =>
    [
      page.unknown,
      page.paidBoleto,
      page.refunded,
      page.boletoPixPast,
      page.boletoCenter,
      page.boleto,
      page.pixCenter,
    ] as string[];
  /** With its child's charge, created last. */
  const treeOrder = () => [page.kid, ...ownOrder()] as string[];

  async function assertViews(items: Record<string, unknown>[], expected: string[]) {
    assert.deepEqual(
      items.map((t) => t.id),
      expected,
    );
    for (const item of items) {
      const one = await app.request('GET', `/v1/transactions/${item.id}`, { headers: key(own.key) });
      assert.equal(one.status, 200, one.text);
      assert.deepEqual(item, one.body.data);
      assert.equal(JSON.stringify(item), JSON.stringify(one.body.data));
    }
  }

  test('SPEC 2.2/4.3: centers, boletos (document and boleto URLs), refunded, unknown; own tenant and subtree', async () => {
    const res = await list(own.key, '?limit=100');
    assert.equal(res.status, 200, res.text);
    await assertViews(res.body.data, ownOrder());
    const by = (id: string | undefined) => res.body.data.find((t: { id: string }) => t.id === id);
    // What the SPEC says of these fields, independently of the GET by id.
    assert.equal(by(page.pixCenter).cost_center_name, 'Vendas São Paulo');
    assert.equal(by(page.boletoCenter).cost_center_name, 'Vendas São Paulo');
    assert.equal(by(page.boleto).cost_center_name, null);
    const boleto = by(page.boletoCenter);
    assert.match(boleto.document_url, new RegExp(`/cobranca/${page.boletoCenter}/[^/]+$`));
    assert.equal(boleto.boleto_url, `${boleto.document_url}/boleto.pdf`);
    assert.equal(boleto.boleto_pix_copy_paste, '00020126580014br.gov.bcb.pix-boleto');
    assert.equal(by(page.boletoPixPast).boleto_pix_copy_paste, null);
    assert.equal(by(page.boletoPixPast).boleto_pix_expires_at, '2026-03-11T02:59:59.000Z');
    // A simulated boleto has no numbers: no boleto_url (SPEC 2.2), a document_url all the same.
    assert.equal(by(page.boleto).boleto_url, null);
    assert.match(by(page.boleto).document_url, new RegExp(`/cobranca/${page.boleto}/[^/]+$`));
    assert.equal(by(page.pixCenter).boleto_url, null);
    assert.deepEqual(by(page.refunded).refund, { status: 'succeeded' });
    assert.equal(by(page.refunded).status, 'refunded');
    assert.match(by(page.refunded).paid_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(by(page.pixCenter).refund, null);
    assert.equal(by(page.unknown).status, 'unknown');
    assert.equal(by(page.unknown).pix_copy_paste, null);
    assert.equal(by(page.unknown).pix_qr_code, null);
    for (const t of res.body.data) {
      assert.match(t.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
    const tree = await list(own.key, '?include_descendants=true&limit=100');
    assert.equal(tree.status, 200, tree.text);
    await assertViews(tree.body.data, treeOrder());
    assert.equal(tree.body.data[0].cost_center_name, 'Filial');
    // Filters keep the same view: a center, a method, a page of two.
    await assertViews(
      (await list(own.key, `?include_descendants=true&cost_center_id=${by(page.pixCenter).cost_center_id}`))
        .body.data,
      [page.boletoCenter, page.pixCenter] as string[],
    );
    // A later page (the statement's other form, SPEC 4.3 offset), own tenant and subtree.
    await assertViews((await list(own.key, '?include_descendants=true&limit=3&offset=2')).body.data, [
      page.paidBoleto,
      page.refunded,
      page.boletoPixPast,
    ] as string[]);
    await assertViews((await list(own.key, '?method=boleto&limit=2&offset=1')).body.data, [
      page.boletoPixPast,
      page.boletoCenter,
    ] as string[]);
  });

  test('SPEC 4.3 admin scope: the panel alias lists the same views (super_admin, one tenant and its tree)', async () => {
    const admin = bearer(await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD));
    const one = await app.request(
      'GET',
      `/admin/transactions?livemode=false&tenant_id=${own.tenantId}&include_descendants=false`,
      {
        headers: admin,
      },
    );
    assert.equal(one.status, 200, one.text);
    await assertViews(one.body.data, ownOrder());
    const tree = await app.request('GET', `/admin/transactions?livemode=false&tenant_id=${own.tenantId}`, {
      headers: admin,
    });
    assert.equal(tree.status, 200, tree.text);
    assert.equal(tree.body.data.length, 8);
    await assertViews(tree.body.data, treeOrder());
    // Unrestricted (every tenant): this tree's charges are among them with the same views.
    const all = await app.request('GET', '/admin/transactions?livemode=false&limit=100', { headers: admin });
    assert.equal(all.status, 200, all.text);
    const mine = all.body.data.filter((t: { tenant_id: string }) =>
      [own.tenantId, kid.tenantId].includes(t.tenant_id),
    );
    await assertViews(mine, treeOrder());
  });
});
