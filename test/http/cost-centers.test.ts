import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { DomainError } from '../../src/aggregates/decider.ts';
import { createCostCenter } from '../../src/commands/cost-centers/create/handler.ts';
import { costCenterNames } from '../../src/commands/cost-centers/names.ts';
import { resolveCostCenter } from '../../src/commands/cost-centers/resolve.ts';
import { updateCostCenter } from '../../src/commands/cost-centers/update/handler.ts';
import { claimIdempotencyKey } from '../../src/commands/idempotency.ts';
import { ERRORS } from '../../src/http/errors.ts';
import { newId } from '../../src/ids.ts';
import {
  commandDeps,
  issueExtraKey,
  type SeededKey,
  seedChildTenant,
  seedTenantAndKey,
} from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

/** SPEC 4.12 cost centers, 5.3 scopes, 5.4 developer keys, 7 error codes; docs/decisions.md "Charges". */

const metadata = { actor: 'system:test', request_id: 'req_test' };
let app: TestApp;
let parent: SeededKey;
let child: SeededKey;
let outsider: SeededKey;
/** Keys of the parent tenant: production, read-only, developer profile. */
let parentLive: string;
let readOnly: string;
let developer: string;
let counter = 0;

const key = (k: string, extra: Record<string, string> = {}) => ({ 'x-api-key': k, ...extra });
const idem = () => `cc-test-${++counter}`;

/** `idempotencyKey: null` sends no Idempotency-Key header. */
function post(k: string, json: unknown, idempotencyKey: string | null = idem()) {
  return app.request('POST', '/v1/cost-centers', {
    headers: key(k, idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey }),
    json,
  });
}

async function created(k: string, name: string): Promise<string> {
  const res = await post(k, { name });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id;
}

const issueKey = (tenantId: string, opts: Parameters<typeof issueExtraKey>[2] = {}) =>
  issueExtraKey(app.gateway.ctx, tenantId, opts);

beforeAll(async () => {
  app = await startTestApp();
  parent = await seedTenantAndKey(app.gateway.ctx);
  child = await seedChildTenant(app.gateway.ctx, parent.tenantId);
  outsider = await seedTenantAndKey(app.gateway.ctx);
  parentLive = await issueKey(parent.tenantId, { livemode: true });
  readOnly = await issueKey(parent.tenantId, { scopes: ['transactions:read'] });
  developer = await issueKey(parent.tenantId, { accessProfile: 'developer' });
});

afterAll(async () => {
  await app.close();
});

describe('POST /v1/cost-centers (SPEC 4.12, 4 common rules)', () => {
  test("201: a center of the key's tenant, name trimmed, active", async () => {
    const res = await post(parent.key, { name: '  Marketing  ' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers.get('idempotency-replayed'), null);
    const cc = res.body.data;
    assert.match(cc.id, /^cc_/);
    assert.equal(cc.tenant_id, parent.tenantId);
    assert.equal(cc.name, 'Marketing');
    assert.equal(cc.active, true);
    assert.equal(cc.created_at, cc.updated_at);
  });

  test('replay: same key and body -> 200 + Idempotency-Replayed, same center; another body -> 409', async () => {
    const k = idem();
    const first = await post(parent.key, { name: 'Sales' }, k);
    assert.equal(first.status, 201);
    const replay = await post(parent.key, { name: 'Sales' }, k);
    assert.equal(replay.status, 200);
    assert.equal(replay.headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(replay.body.data, first.body.data);
    // The normalized body is compared: surrounding spaces do not make another request.
    const padded = await post(parent.key, { name: ' Sales ' }, k);
    assert.equal(padded.status, 200);
    const other = await post(parent.key, { name: 'Other' }, k);
    assert.equal(other.status, 409);
    assert.equal(other.body.error.code, 'idempotency_conflict');
  });

  test('the idempotency scope is the tenant: the live key of the same tenant replays the same center', async () => {
    const k = idem();
    const first = await post(parent.key, { name: 'Shared' }, k);
    const live = await post(parentLive, { name: 'Shared' }, k);
    assert.equal(live.status, 200);
    assert.equal(live.body.data.id, first.body.data.id);
    // Another tenant using the same key gets its own center.
    const elsewhere = await post(outsider.key, { name: 'Shared' }, k);
    assert.equal(elsewhere.status, 201);
    assert.notEqual(elsewhere.body.data.id, first.body.data.id);
  });

  test('a claim left without its center (crash between the appends) is completed by the replay', async () => {
    const k = idem();
    const id = newId('cc');
    await claimIdempotencyKey(
      app.gateway.ctx,
      {
        scope: parent.tenantId,
        key: k,
        method: 'POST',
        route: '/v1/cost-centers',
        body: { name: 'Crashed' },
        resourceId: id,
        payload: { tenant_id: parent.tenantId, name: 'Crashed' },
      },
      metadata,
    );
    const res = await post(parent.key, { name: 'Crashed' }, k);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('idempotency-replayed'), 'true');
    assert.equal(res.body.data.id, id);
    const read = await app.request('GET', `/v1/cost-centers/${id}`, { headers: key(parent.key) });
    assert.equal(read.status, 200);
    assert.equal(read.body.data.name, 'Crashed');
  });

  test('400 idempotency_key_required: an Idempotency-Key outside the pattern (none at all is allowed: SPEC 4 common rules, issue 12)', async () => {
    for (const header of ['', 'has space', 'x'.repeat(129)]) {
      const res = await post(parent.key, { name: 'X' }, header);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'idempotency_key_required');
    }
  });

  test('400 invalid_json: unknown field, tenant_id, null, wrong type, malformed, duplicate', async () => {
    for (const json of [
      { name: 'X', extra: 1 },
      { name: 'X', tenant_id: child.tenantId },
      null,
      { name: 7 },
    ]) {
      const res = await post(parent.key, json);
      assert.equal(res.status, 400, JSON.stringify(json));
      assert.equal(res.body.error.code, 'invalid_json');
    }
    for (const raw of ['{"name":', '{"name":"a","Name":"b"}']) {
      const res = await app.request('POST', '/v1/cost-centers', {
        headers: key(parent.key, { 'idempotency-key': idem() }),
        raw,
      });
      assert.equal(res.status, 400, raw);
      assert.equal(res.body.error.code, 'invalid_json');
    }
  });

  test('422 validation_error: missing name, empty after trim, over 100 bytes, control characters', async () => {
    for (const json of [{}, { name: '   ' }, { name: 'é'.repeat(51) }, { name: 'a\u0001b' }]) {
      const res = await post(parent.key, json);
      assert.equal(res.status, 422, JSON.stringify(json));
      assert.equal(res.body.error.code, 'validation_error');
    }
    // 100 bytes fit.
    assert.equal((await post(parent.key, { name: 'é'.repeat(50) })).status, 201);
  });

  test('401 unauthorized: no key or an unknown key', async () => {
    for (const headers of [
      { 'idempotency-key': idem() },
      key('ck_test_nope', { 'idempotency-key': idem() }),
    ]) {
      const res = await app.request('POST', '/v1/cost-centers', { headers, json: { name: 'X' } });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'unauthorized');
    }
  });

  test('403 insufficient_scope: without cost_centers:write, and for developer keys (SPEC 5.4)', async () => {
    for (const k of [readOnly, developer]) {
      const res = await post(k, { name: 'X' });
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'insufficient_scope');
    }
  });
});

describe('GET /v1/cost-centers/{id} (SPEC 4.12, 4.4)', () => {
  test('test and live keys of the tenant see the same center; a parent reads a child center', async () => {
    const id = await created(parent.key, 'Same in both modes');
    const test = await app.request('GET', `/v1/cost-centers/${id}`, { headers: key(parent.key) });
    const live = await app.request('GET', `/v1/cost-centers/${id}`, { headers: key(parentLive) });
    assert.equal(test.status, 200);
    assert.deepEqual(live.body, test.body);
    const childId = await created(child.key, 'Child center');
    const byParent = await app.request('GET', `/v1/cost-centers/${childId}`, { headers: key(parent.key) });
    assert.equal(byParent.status, 200);
    assert.equal(byParent.body.data.tenant_id, child.tenantId);
    // Developer keys read cost centers (SPEC 5.4).
    assert.equal(
      (await app.request('GET', `/v1/cost-centers/${id}`, { headers: key(developer) })).status,
      200,
    );
  });

  test('404 not_found: an ancestor, another tree, a missing id', async () => {
    const id = await created(parent.key, 'Parent only');
    const outside = await created(outsider.key, 'Elsewhere');
    for (const [k, cc] of [
      [child.key, id],
      [parent.key, outside],
      [parent.key, 'cc_missing'],
      [parent.key, 'not-an-id'],
    ] as const) {
      const res = await app.request('GET', `/v1/cost-centers/${cc}`, { headers: key(k) });
      assert.equal(res.status, 404, `${cc}`);
      assert.equal(res.body.error.code, 'not_found');
    }
  });

  test('401 without a key; 403 insufficient_scope without transactions:read', async () => {
    const id = await created(parent.key, 'Scoped');
    assert.equal((await app.request('GET', `/v1/cost-centers/${id}`)).status, 401);
    const writeOnly = await issueKey(parent.tenantId, { scopes: ['cost_centers:write'] });
    const res = await app.request('GET', `/v1/cost-centers/${id}`, { headers: key(writeOnly) });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'insufficient_scope');
    const list = await app.request('GET', '/v1/cost-centers', { headers: key(writeOnly) });
    assert.equal(list.status, 403);
  });
});

describe('PATCH /v1/cost-centers/{id} (SPEC 4.12)', () => {
  const patch = (k: string, id: string, json: unknown) =>
    app.request('PATCH', `/v1/cost-centers/${id}`, { headers: key(k), json });

  test('rename and deactivate together, reactivate, repeat as a no-op', async () => {
    const id = await created(parent.key, 'Ops');
    const both = await patch(parent.key, id, { name: ' Operations ', active: false });
    assert.equal(both.status, 200, both.text);
    assert.equal(both.body.data.name, 'Operations');
    assert.equal(both.body.data.active, false);
    const again = await patch(parent.key, id, { name: 'Operations', active: false });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body.data, both.body.data);
    const on = await patch(parentLive, id, { active: true });
    assert.equal(on.status, 200);
    assert.equal(on.body.data.active, true);
    assert.equal(on.body.data.name, 'Operations');
    const events = await app.gateway.ctx.store.read(`cost_center-${id}`);
    assert.deepEqual(
      events.map((e) => e.type),
      ['CostCenter.Created', 'CostCenter.Renamed', 'CostCenter.Deactivated', 'CostCenter.Reactivated'],
    );
  });

  test("403 forbidden: a descendant's center (writes only the own tenant); 404 outside the tree", async () => {
    const childId = await created(child.key, 'Child owned');
    const res = await patch(parent.key, childId, { active: false });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'forbidden');
    const parentId = await created(parent.key, 'Parent owned');
    for (const [k, id] of [
      [child.key, parentId],
      [outsider.key, parentId],
      [parent.key, 'cc_missing'],
    ] as const) {
      const r = await patch(k, id, { active: false });
      assert.equal(r.status, 404);
      assert.equal(r.body.error.code, 'not_found');
    }
  });

  test('400 invalid_json, 422 validation_error, 401, 403 insufficient_scope', async () => {
    const id = await created(parent.key, 'Checked');
    for (const json of [null, { name: 'X', extra: true }, { active: 'false' }, { active: null }]) {
      const r = await patch(parent.key, id, json);
      assert.equal(r.status, 400, JSON.stringify(json));
      assert.equal(r.body.error.code, 'invalid_json');
    }
    for (const json of [{}, { name: '' }, { name: 'x'.repeat(101) }]) {
      const r = await patch(parent.key, id, json);
      assert.equal(r.status, 422, JSON.stringify(json));
      assert.equal(r.body.error.code, 'validation_error');
    }
    const anon = await app.request('PATCH', `/v1/cost-centers/${id}`, { json: { active: false } });
    assert.equal(anon.status, 401);
    for (const k of [readOnly, developer]) {
      const r = await patch(k, id, { active: false });
      assert.equal(r.status, 403);
      assert.equal(r.body.error.code, 'insufficient_scope');
    }
  });
});

describe('GET /v1/cost-centers (SPEC 4.12, 4.3 list conventions)', () => {
  let root: SeededKey;
  let kid: SeededKey;
  let grandkid: SeededKey;
  let rootLive: string;
  const ids: Record<string, string> = {};

  const list = async (k: string, query = '') => {
    const res = await app.request('GET', `/v1/cost-centers${query}`, { headers: key(k) });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const names = (body: { data: { name: string }[] }) => body.data.map((c) => c.name);

  beforeAll(async () => {
    root = await seedTenantAndKey(app.gateway.ctx);
    kid = await seedChildTenant(app.gateway.ctx, root.tenantId);
    grandkid = await seedChildTenant(app.gateway.ctx, kid.tenantId);
    rootLive = await issueKey(root.tenantId, { livemode: true });
    ids.r1 = await created(root.key, 'r1');
    ids.r2 = await created(rootLive, 'r2');
    ids.k1 = await created(kid.key, 'k1');
    ids.g1 = await created(grandkid.key, 'g1');
    await updateCostCenter(
      commandDeps(app.gateway.ctx),
      { costCenterId: ids.r2, keyTenantId: root.tenantId, active: false },
      metadata,
    );
  });

  test('default: own tenant only, oldest first; test and live keys list the same centers', async () => {
    const body = await list(root.key);
    assert.deepEqual(names(body), ['r1', 'r2']);
    assert.deepEqual(body.meta, { limit: 50, offset: 0, count: 2 });
    assert.deepEqual(await list(rootLive), body);
  });

  test('include_descendants and tenant_id select the filter root within the tree', async () => {
    assert.deepEqual(names(await list(root.key, '?include_descendants=true')), ['r1', 'r2', 'k1', 'g1']);
    assert.deepEqual(names(await list(root.key, `?tenant_id=${kid.tenantId}`)), ['k1']);
    assert.deepEqual(names(await list(root.key, `?tenant_id=${kid.tenantId}&include_descendants=true`)), [
      'k1',
      'g1',
    ]);
    // A child never sees its parent's centers.
    assert.deepEqual(names(await list(kid.key, '?include_descendants=true')), ['k1', 'g1']);
  });

  test('404 not_found: tenant_id outside the tree (an ancestor or another tree) grants no access', async () => {
    for (const [k, t] of [
      [kid.key, root.tenantId],
      [root.key, outsider.tenantId],
      [root.key, 'ten_missing'],
    ] as const) {
      const res = await app.request('GET', `/v1/cost-centers?tenant_id=${t}`, { headers: key(k) });
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'not_found');
    }
  });

  test('active filter and paging (limit clamped to 100; count is the page size)', async () => {
    assert.deepEqual(names(await list(root.key, '?active=true')), ['r1']);
    assert.deepEqual(names(await list(root.key, '?active=false')), ['r2']);
    const page = await list(root.key, '?include_descendants=true&limit=2&offset=2');
    assert.deepEqual(names(page), ['k1', 'g1']);
    assert.deepEqual(page.meta, { limit: 2, offset: 2, count: 2 });
    assert.equal((await list(root.key, '?limit=500')).meta.limit, 100);
  });

  test('422 validation_error: bad query values', async () => {
    for (const q of ['?active=yes', '?include_descendants=1', '?limit=0', '?offset=-1']) {
      const res = await app.request('GET', `/v1/cost-centers${q}`, { headers: key(root.key) });
      assert.equal(res.status, 422, q);
      assert.equal(res.body.error.code, 'validation_error');
    }
  });
});

describe('resolveCostCenter and costCenterNames (for the charge endpoints; SPEC 7 invalid_cost_center)', () => {
  test('an active center of the tenant resolves; inactive, another tenant or missing is 422', async () => {
    const deps = commandDeps(app.gateway.ctx);
    const ctx = app.gateway.ctx;
    const { record } = await createCostCenter(
      deps,
      { tenantId: parent.tenantId, name: 'Billing', idempotencyKey: idem(), route: '/v1/cost-centers' },
      metadata,
    );
    const resolved = await resolveCostCenter(ctx, parent.tenantId, record.id);
    assert.equal(resolved.id, record.id);

    const refusals: [string, string][] = [
      [child.tenantId, record.id], // a descendant may not use its parent's center
      [outsider.tenantId, record.id],
      [parent.tenantId, 'cc_missing'],
    ];
    await updateCostCenter(
      deps,
      { costCenterId: record.id, keyTenantId: parent.tenantId, active: false },
      metadata,
    );
    refusals.push([parent.tenantId, record.id]); // inactive
    for (const [tenantId, id] of refusals) {
      await assert.rejects(resolveCostCenter(ctx, tenantId, id), (error: unknown) => {
        assert.ok(error instanceof DomainError);
        assert.equal(error.code, 'invalid_cost_center');
        assert.equal(ERRORS.invalid_cost_center[0], 422);
        return true;
      });
    }

    await updateCostCenter(
      deps,
      { costCenterId: record.id, keyTenantId: parent.tenantId, name: 'Billing 2', active: true },
      metadata,
    );
    // costCenterNames reads the read model (lists): settled first in async mode.
    await app.settle();
    const map = await costCenterNames(ctx, [record.id, record.id, 'cc_missing']);
    assert.deepEqual([...map], [[record.id, 'Billing 2']]);
    assert.equal((await costCenterNames(ctx, [])).size, 0);
  });
});
