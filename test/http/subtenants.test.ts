import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { SCOPES, type Scope } from '../../src/aggregates/access.ts';
import { claimIdempotencyKey } from '../../src/commands/idempotency.ts';
import { createTenant } from '../../src/commands/tenants/create/handler.ts';
import { createTenantType } from '../../src/commands/tenants/create-type/handler.ts';
import { reactivateTenant } from '../../src/commands/tenants/reactivate/handler.ts';
import { suspendTenant } from '../../src/commands/tenants/suspend/handler.ts';
import { sha256Hex } from '../../src/crypto/secrets.ts';
import { newId } from '../../src/ids.ts';
import { commandDeps, issueExtraKey, type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

/**
 * SPEC 4.13 subtenants, 4 common rules (Idempotency-Key), 5.2 modes, 5.3 scopes, 5.4 developer keys, 5.5
 * hierarchy and suspension, 7 error codes; docs/decisions.md "Subtenants (issue 28 item 1)".
 */

const metadata = { actor: 'system:test', request_id: 'req_test' };
let app: TestApp;
/** The software house: a tenant whose type allows children, with a production key of every scope. */
let house: SeededKey;
let houseTest: string;
let houseDeveloper: string;
/** Production keys of the house without subtenants:write / subtenants:read / subtenants:keys:write. */
let houseNoScopes: string;
/** A production key of the house with only subtenants:keys:write and pix:write. */
let houseNarrow: string;
let outsider: SeededKey;
/** A tenant whose type allows no children, with a production key of every scope. */
let leaf: SeededKey;
/** The house's type: a subtenant of it allows children too. */
let typeId: string;
/** A type that allows no children. */
let leafTypeId: string;
let counter = 0;

const idem = () => `sub-test-${++counter}-${randomUUID().slice(0, 8)}`;
type Headers = Record<string, string>;

/** `idempotencyKey: null` sends no Idempotency-Key header. */
function post(key: string, json: unknown, idempotencyKey: string | null = idem()) {
  const headers: Headers = { 'x-api-key': key };
  if (idempotencyKey !== null) headers['idempotency-key'] = idempotencyKey;
  return app.request('POST', '/v1/subtenants', { headers, json });
}

function list(key: string, query = '') {
  return app.request('GET', `/v1/subtenants${query}`, { headers: { 'x-api-key': key } });
}

function postKey(key: string, tenantId: string, json: unknown, idempotencyKey: string | null = idem()) {
  const headers: Headers = { 'x-api-key': key };
  if (idempotencyKey !== null) headers['idempotency-key'] = idempotencyKey;
  return app.request('POST', `/v1/subtenants/${encodeURIComponent(tenantId)}/api-keys`, { headers, json });
}

const issueKey = (tenantId: string, opts: Parameters<typeof issueExtraKey>[2] = {}) =>
  issueExtraKey(app.gateway.ctx, tenantId, { livemode: true, ...opts });

async function subtenant(key: string, name: string, type = typeId): Promise<string> {
  const res = await post(key, { name, type_id: type });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id;
}

/** The tenants directly below `parentId` in the read model: what a refused request must leave unchanged. */
async function childCount(parentId: string): Promise<number> {
  await app.settle();
  const rows = await app.gateway.ctx.db
    .selectFrom('tenants')
    .select('id')
    .where('parent_id', '=', parentId)
    .execute();
  return rows.length;
}

beforeAll(async () => {
  app = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000' });
  const deps = commandDeps(app.gateway.ctx);
  house = await seedTenantAndKey(app.gateway.ctx, { livemode: true, tenantName: 'Software house' });
  // With async projections the tenants row follows the seed a moment later.
  await app.settle();
  const houseTenant = await app.gateway.ctx.db
    .selectFrom('tenants')
    .select('type_id')
    .where('id', '=', house.tenantId)
    .executeTakeFirstOrThrow();
  typeId = houseTenant.type_id;
  houseTest = await issueKey(house.tenantId, { livemode: false });
  houseDeveloper = await issueKey(house.tenantId, { accessProfile: 'developer' });
  houseNoScopes = await issueKey(house.tenantId, {
    scopes: SCOPES.filter((s) => !s.startsWith('subtenants:')),
  });
  houseNarrow = await issueKey(house.tenantId, { scopes: ['subtenants:keys:write', 'pix:write'] });
  outsider = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
  const { type } = await createTenantType(
    deps,
    { name: `leaf ${randomUUID()}`, allowsChildren: false },
    metadata,
  );
  leafTypeId = type.id;
  const leafTenant = await createTenant(deps, { name: 'Leaf', typeId: leafTypeId, parentId: null }, metadata);
  leaf = { tenantId: leafTenant.id, keyId: '', key: await issueKey(leafTenant.id) };
});

afterAll(async () => {
  await app.close();
});

describe('POST /v1/subtenants (SPEC 4.13, 4 common rules)', () => {
  test("201: a child of the key's tenant, name trimmed, active; the audit log names the key", async () => {
    const res = await post(house.key, { name: '  Padaria Central  ', type_id: typeId });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers.get('idempotency-replayed'), null);
    const s = res.body.data;
    assert.match(s.id, /^ten_/);
    assert.deepEqual(
      { name: s.name, type_id: s.type_id, parent_id: s.parent_id, status: s.status },
      { name: 'Padaria Central', type_id: typeId, parent_id: house.tenantId, status: 'active' },
    );
    assert.ok(!Number.isNaN(Date.parse(s.created_at)));
    // SPEC 6: internal audit records; the creation is the registry's tenant.created, by this key.
    await app.settle();
    const audit = await app.gateway.ctx.db
      .selectFrom('audit_log')
      .select(['actor', 'action', 'tenant_id'])
      .where('target_id', '=', s.id)
      .execute();
    assert.deepEqual(
      audit.map((a) => [a.action, a.actor]),
      [['tenant.created', `api_key:${house.keyId}`]],
    );
  });

  test('replay: same key and body -> 200 + Idempotency-Replayed, same subtenant; another body -> 409', async () => {
    const k = idem();
    const first = await post(house.key, { name: 'Mercado Sul', type_id: typeId }, k);
    assert.equal(first.status, 201, first.text);
    const replay = await post(house.key, { type_id: typeId, name: ' Mercado Sul ' }, k);
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(replay.body.data, first.body.data);
    const before = await childCount(house.tenantId);
    const other = await post(house.key, { name: 'Mercado Norte', type_id: typeId }, k);
    assert.equal(other.status, 409, other.text);
    assert.equal(other.body.error.code, 'idempotency_conflict');
    assert.equal(await childCount(house.tenantId), before);
  });

  test("without type_id the subtenant gets the key tenant's type; sending that type is the same request", async () => {
    const k = idem();
    const res = await post(house.key, { name: 'Sem tipo' }, k);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.type_id, typeId);
    const explicit = await post(house.key, { name: 'Sem tipo', type_id: typeId }, k);
    assert.equal(explicit.status, 200, explicit.text);
    assert.equal(explicit.body.data.id, res.body.data.id);
  });

  test('the same Idempotency-Key in another tenant creates that tenant its own subtenant (cross-tenant)', async () => {
    const k = idem();
    const mine = await post(house.key, { name: 'Loja A', type_id: typeId }, k);
    const theirs = await post(outsider.key, { name: 'Loja A', type_id: typeId }, k);
    assert.equal(theirs.status, 201, theirs.text);
    assert.equal(theirs.body.data.parent_id, outsider.tenantId);
    assert.notEqual(theirs.body.data.id, mine.body.data.id);
  });

  test('a claim left without its tenant (crash between the appends) is completed by the replay', async () => {
    const k = idem();
    const id = newId('ten');
    await claimIdempotencyKey(
      commandDeps(app.gateway.ctx),
      {
        scope: house.tenantId,
        key: k,
        method: 'POST',
        route: '/v1/subtenants',
        body: { name: 'Oficina', type_id: typeId },
        resourceId: id,
        payload: { parent_id: house.tenantId, name: 'Oficina', type_id: typeId },
        livemode: true,
      },
      metadata,
    );
    const res = await post(house.key, { name: 'Oficina', type_id: typeId }, k);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.id, id);
    assert.equal(res.body.data.parent_id, house.tenantId);
  });

  test('a test key is refused (production key only): 403 forbidden, nothing stored (cross-mode)', async () => {
    const before = await childCount(house.tenantId);
    const res = await post(houseTest, { name: 'Teste', type_id: typeId });
    assert.equal(res.status, 403, res.text);
    assert.equal(res.body.error.code, 'forbidden');
    assert.equal(await childCount(house.tenantId), before);
  });

  test('tenant_id in the body: 422 tenant_from_api_key (SPEC 5.5), nothing stored', async () => {
    const before = await childCount(house.tenantId);
    for (const tenant_id of [outsider.tenantId, house.tenantId]) {
      const res = await post(house.key, { name: 'Outra', type_id: typeId, tenant_id });
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body.error.code, 'tenant_from_api_key');
    }
    assert.equal(await childCount(house.tenantId), before);
  });

  test('invalid bodies: 422 validation_error or 400 invalid_json, never 5xx, nothing stored', async () => {
    const before = await childCount(house.tenantId);
    const cases: [unknown, number, string][] = [
      [{ type_id: typeId }, 422, 'validation_error'],
      [{ name: 'X', type_id: typeId }, 422, 'validation_error'],
      [{ name: 'x'.repeat(121), type_id: typeId }, 422, 'validation_error'],
      [{ name: 'Tipo inexistente', type_id: 'tty_missing' }, 422, 'validation_error'],
      [{ name: 12, type_id: typeId }, 400, 'invalid_json'],
      [{ name: 'Extra', type_id: typeId, parent_id: house.tenantId }, 400, 'invalid_json'],
      [null, 400, 'invalid_json'],
    ];
    for (const [json, status, code] of cases) {
      const res = await post(house.key, json);
      assert.equal(res.status, status, `${JSON.stringify(json)}: ${res.text}`);
      assert.equal(res.body.error.code, code, JSON.stringify(json));
    }
    const unknownType = await post(house.key, { name: 'Tipo inexistente', type_id: 'tty_missing' });
    assert.equal(unknownType.body.error.param, 'type_id');
    assert.equal(await childCount(house.tenantId), before);
  });

  test("the key's tenant type must allow children: 409 conflict, nothing stored", async () => {
    const res = await post(leaf.key, { name: 'Filha', type_id: typeId });
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'conflict');
    assert.equal(await childCount(leaf.tenantId), 0);
  });

  test('Idempotency-Key missing or malformed: 400 idempotency_key_required', async () => {
    for (const k of [null, 'has space', 'x'.repeat(129)]) {
      const res = await post(house.key, { name: 'Sem chave', type_id: typeId }, k);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'idempotency_key_required');
    }
  });

  test('401 without a valid key; 403 insufficient_scope without subtenants:write or with a developer key', async () => {
    const none = await app.request('POST', '/v1/subtenants', {
      headers: { 'idempotency-key': idem() },
      json: { name: 'Sem chave', type_id: typeId },
    });
    assert.equal(none.status, 401);
    assert.equal(none.body.error.code, 'unauthorized');
    const wrong = await post('clb_live_not-a-key', { name: 'Chave errada', type_id: typeId });
    assert.equal(wrong.status, 401);
    for (const key of [houseNoScopes, houseDeveloper]) {
      const res = await post(key, { name: 'Sem escopo', type_id: typeId });
      assert.equal(res.status, 403, res.text);
      assert.equal(res.body.error.code, 'insufficient_scope');
    }
  });

  test('a suspended tenant or ancestor: 403 tenant_suspended; works again after reactivation', async () => {
    const deps = commandDeps(app.gateway.ctx);
    const root = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
    const childId = await subtenant(root.key, 'Filial');
    const childKey = await issueKey(childId);
    await suspendTenant(deps, root.tenantId, metadata);
    await app.settle();
    for (const key of [root.key, childKey]) {
      const res = await post(key, { name: 'Bloqueada', type_id: typeId });
      assert.equal(res.status, 403, res.text);
      assert.equal(res.body.error.code, 'tenant_suspended');
    }
    await reactivateTenant(deps, root.tenantId, metadata);
    await app.settle();
    const again = await post(childKey, { name: 'Neta', type_id: typeId });
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.data.parent_id, childId);
  });
});

describe('GET /v1/subtenants (SPEC 4.13)', () => {
  let root: SeededKey;
  let rootTest: string;
  let a: string;
  let b: string;
  let grandchild: string;
  let childKey: string;

  beforeAll(async () => {
    root = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
    rootTest = await issueKey(root.tenantId, { livemode: false });
    a = await subtenant(root.key, 'Filha A');
    b = await subtenant(root.key, 'Filha B');
    childKey = await issueKey(a);
    grandchild = await subtenant(childKey, 'Neta A1');
    await suspendTenant(commandDeps(app.gateway.ctx), b, metadata);
    await app.settle();
  });

  test('direct children by default, oldest first, in the list envelope', async () => {
    const res = await list(root.key);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.data.map((s: { id: string }) => s.id),
      [a, b],
    );
    assert.deepEqual(res.body.meta, { limit: 50, offset: 0, count: 2 });
    const first = res.body.data[0];
    assert.deepEqual(Object.keys(first).sort(), [
      'created_at',
      'id',
      'name',
      'parent_id',
      'status',
      'type_id',
    ]);
    assert.equal(first.parent_id, root.tenantId);
  });

  test('include_descendants=true adds the subtree below, never the key tenant itself', async () => {
    const res = await list(root.key, '?include_descendants=true');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.map((s: { id: string }) => s.id).sort(), [a, b, grandchild].sort());
  });

  test('status filter, limit and offset', async () => {
    const active = await list(root.key, '?status=active&include_descendants=true');
    assert.deepEqual(active.body.data.map((s: { id: string }) => s.id).sort(), [a, grandchild].sort());
    const suspended = await list(root.key, '?status=suspended');
    assert.deepEqual(
      suspended.body.data.map((s: { id: string; status: string }) => [s.id, s.status]),
      [[b, 'suspended']],
    );
    const page = await list(root.key, '?limit=1&offset=1');
    assert.deepEqual(page.body.meta, { limit: 1, offset: 1, count: 1 });
    assert.equal(page.body.data[0].id, b);
    const capped = await list(root.key, '?limit=1000');
    assert.equal(capped.body.meta.limit, 100);
  });

  test("a child's key lists only its own subtree; another tree sees none of them (cross-tenant)", async () => {
    const child = await list(childKey, '?include_descendants=true');
    assert.deepEqual(
      child.body.data.map((s: { id: string }) => s.id),
      [grandchild],
    );
    const other = await list(outsider.key, '?include_descendants=true');
    assert.equal(other.status, 200);
    const ids = other.body.data.map((s: { id: string }) => s.id);
    for (const id of [a, b, grandchild, root.tenantId]) assert.ok(!ids.includes(id));
  });

  test('a test key of the tenant lists the same subtenants (tenants have no mode, like cost centers)', async () => {
    const live = await list(root.key, '?include_descendants=true');
    const test_ = await list(rootTest, '?include_descendants=true');
    assert.equal(test_.status, 200, test_.text);
    assert.deepEqual(test_.body.data, live.body.data);
  });

  test('bad filters: 422 validation_error', async () => {
    for (const q of ['?status=deleted', '?include_descendants=yes', '?limit=0', '?offset=-1']) {
      const res = await list(root.key, q);
      assert.equal(res.status, 422, `${q}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_error');
    }
  });

  test('401 without a key; 403 insufficient_scope without subtenants:read or with a developer key', async () => {
    const none = await app.request('GET', '/v1/subtenants');
    assert.equal(none.status, 401);
    for (const key of [houseNoScopes, houseDeveloper]) {
      const res = await list(key);
      assert.equal(res.status, 403, res.text);
      assert.equal(res.body.error.code, 'insufficient_scope');
    }
  });

  test('a suspended tenant: 403 tenant_suspended', async () => {
    const suspendedKey = await issueKey(b);
    const res = await list(suspendedKey);
    assert.equal(res.status, 403, res.text);
    assert.equal(res.body.error.code, 'tenant_suspended');
  });
});

describe('POST /v1/subtenants/{id}/api-keys (SPEC 4.13, 5.3-5.5)', () => {
  let root: SeededKey;
  let rootTest: string;
  let child: string;
  let grandchild: string;
  let childKey: string;

  beforeAll(async () => {
    root = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
    rootTest = await issueKey(root.tenantId, { livemode: false });
    child = await subtenant(root.key, 'Cliente 1');
    childKey = await issueKey(child);
    grandchild = await subtenant(childKey, 'Cliente 1.1');
  });

  test('201: a key of the subtenant in the caller mode, standard profile, secret shown once and stored hashed', async () => {
    const scopes: Scope[] = ['transactions:read', 'pix:write'];
    const res = await postKey(root.key, child, { name: ' ERP da padaria ', scopes });
    assert.equal(res.status, 201, res.text);
    const k = res.body.data;
    assert.equal(k.tenant_id, child);
    assert.equal(k.name, 'ERP da padaria');
    assert.equal(k.mode, 'live');
    assert.equal(k.access_profile, 'standard');
    assert.equal(k.status, 'issued');
    // Canonical order (SPEC 5.3 list), whatever order was sent.
    assert.deepEqual(k.scopes, ['pix:write', 'transactions:read']);
    assert.match(k.key, /^clb_live_/);
    assert.ok(k.key.startsWith(k.prefix));
    // The key works for the subtenant, with its scopes only.
    const own = await app.request('GET', '/v1/transactions', { headers: { 'x-api-key': k.key } });
    assert.equal(own.status, 200, own.text);
    const denied = await list(k.key);
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error.code, 'insufficient_scope');
    // Stored hashed: neither the events nor the read model hold the secret.
    await app.settle();
    const row = await app.gateway.ctx.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', k.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.secret_sha256, sha256Hex(k.key));
    assert.ok(!JSON.stringify(row).includes(k.key));
    const events = await app.gateway.ctx.store.read(`api_key-${k.id}`);
    assert.ok(!JSON.stringify(events).includes(k.key));
    const audit = await app.gateway.ctx.db
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('target_id', '=', k.id)
      .execute();
    assert.deepEqual(
      audit.map((a) => [a.action, a.actor]),
      [['api_key.created', `api_key:${root.keyId}`]],
    );
    assert.ok(!JSON.stringify(audit).includes(k.key));
  });

  test('a test caller issues a test key (cross-mode); a descendant below a child is allowed', async () => {
    const res = await postKey(rootTest, grandchild, { name: 'Teste', scopes: ['pix:write'] });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.mode, 'test');
    assert.match(res.body.data.key, /^clb_test_/);
    assert.equal(res.body.data.tenant_id, grandchild);
  });

  test('replay: same key and body -> 200 without the secret; another body -> 409, nothing issued', async () => {
    const k = idem();
    const first = await postKey(root.key, child, { name: 'Replay', scopes: ['pix:write'] }, k);
    assert.equal(first.status, 201, first.text);
    const replay = await postKey(root.key, child, { scopes: ['pix:write'], name: 'Replay' }, k);
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.headers.get('idempotency-replayed'), 'true');
    assert.equal(replay.body.data.id, first.body.data.id);
    assert.equal(replay.body.data.key, undefined);
    const other = await postKey(root.key, child, { name: 'Replay', scopes: ['boleto:write'] }, k);
    assert.equal(other.status, 409, other.text);
    assert.equal(other.body.error.code, 'idempotency_conflict');
    const otherTenant = await postKey(root.key, grandchild, { name: 'Replay', scopes: ['pix:write'] }, k);
    assert.equal(otherTenant.status, 409);
  });

  test("the key's own tenant: 403 forbidden; ancestors, other trees and unknown ids: 404 (cross-tenant)", async () => {
    const own = await postKey(root.key, root.tenantId, { name: 'Propria', scopes: ['pix:write'] });
    assert.equal(own.status, 403, own.text);
    assert.equal(own.body.error.code, 'forbidden');
    const cases: [string, string][] = [
      [childKey, root.tenantId],
      [childKey, outsider.tenantId],
      [root.key, outsider.tenantId],
      [outsider.key, child],
      [root.key, 'ten_missing'],
    ];
    for (const [key, id] of cases) {
      const res = await postKey(key, id, { name: 'Fora', scopes: ['pix:write'] });
      assert.equal(res.status, 404, `${id}: ${res.text}`);
      assert.equal(res.body.error.code, 'not_found');
    }
  });

  test('scopes the caller lacks: 403 insufficient_scope, nothing issued', async () => {
    const target = await subtenant(house.key, 'Cliente estreito');
    const res = await postKey(houseNarrow, target, { name: 'Larga', scopes: ['pix:write', 'boleto:write'] });
    assert.equal(res.status, 403, res.text);
    assert.equal(res.body.error.code, 'insufficient_scope');
    assert.match(res.body.error.message, /boleto:write/);
    await app.settle();
    const keys = await app.gateway.ctx.db
      .selectFrom('api_keys')
      .select('id')
      .where('tenant_id', '=', target)
      .execute();
    assert.equal(keys.length, 0);
    // Within its own scopes the same caller may.
    const ok = await postKey(houseNarrow, target, { name: 'Estreita', scopes: ['pix:write'] });
    assert.equal(ok.status, 201, ok.text);
  });

  test('a suspended subtenant gets no key: 403 tenant_suspended', async () => {
    const target = await subtenant(root.key, 'Suspensa');
    await suspendTenant(commandDeps(app.gateway.ctx), target, metadata);
    await app.settle();
    const res = await postKey(root.key, target, { name: 'Bloqueada', scopes: ['pix:write'] });
    assert.equal(res.status, 403, res.text);
    assert.equal(res.body.error.code, 'tenant_suspended');
  });

  test('invalid bodies: 422 validation_error or 400 invalid_json', async () => {
    const cases: [unknown, number, string][] = [
      [{ name: 'Vazia', scopes: [] }, 422, 'validation_error'],
      [{ name: 'Desconhecido', scopes: ['admin'] }, 422, 'validation_error'],
      [{ name: 'Repetido', scopes: ['pix:write', 'pix:write'] }, 422, 'validation_error'],
      [{ name: 'X', scopes: ['pix:write'] }, 422, 'validation_error'],
      [{ scopes: ['pix:write'] }, 422, 'validation_error'],
      [{ name: 'Modo', scopes: ['pix:write'], mode: 'live' }, 400, 'invalid_json'],
      [{ name: 'Perfil', scopes: ['pix:write'], access_profile: 'standard' }, 400, 'invalid_json'],
    ];
    for (const [json, status, code] of cases) {
      const res = await postKey(root.key, child, json);
      assert.equal(res.status, status, `${JSON.stringify(json)}: ${res.text}`);
      assert.equal(res.body.error.code, code, JSON.stringify(json));
    }
  });

  test('400 idempotency_key_required; 401 without a key; 403 insufficient_scope without the scope or as developer', async () => {
    const missing = await postKey(root.key, child, { name: 'Sem chave', scopes: ['pix:write'] }, null);
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.code, 'idempotency_key_required');
    const none = await app.request('POST', `/v1/subtenants/${child}/api-keys`, {
      headers: { 'idempotency-key': idem() },
      json: { name: 'Sem chave', scopes: ['pix:write'] },
    });
    assert.equal(none.status, 401);
    const houseChild = await subtenant(house.key, 'Cliente da casa');
    for (const key of [houseNoScopes, houseDeveloper]) {
      const res = await postKey(key, houseChild, { name: 'Sem escopo', scopes: ['pix:write'] });
      assert.equal(res.status, 403, res.text);
      assert.equal(res.body.error.code, 'insufficient_scope');
    }
  });
});
