import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, test } from 'vitest';
import { SCOPES } from '../../src/aggregates/access.ts';
import { assertError } from '../support/admin.ts';
import { dumpEveryTable } from '../support/database-dump.ts';
import { useExternalProviderWorld } from '../support/external-provider.ts';
import { issueExtraKey, type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { COMPANY_PARTS, freshDocument, INVALID_CPF } from '../support/subaccount-fixtures.ts';

// SPEC 4.13 "registers a child company and tries to convert its subaccount", over the real HTTP stack,
// PostgreSQL and the provider emulator on a socket. Expected values come from SPEC 1 (the client never
// chooses the provider), 2.7 (subaccount fields, sanitized errors), 2.8 (the marketplace the routing reaches;
// matrix production key; 301 for its sandbox key), 3.6 (creating/unknown/failed), 4 common rules
// (Idempotency-Key), 5.2-5.4 (live key only, scope, developer keys) and 7 (error codes);
// docs/decisions.md "Subtenants (issue 28 item 1)".

const world = useExternalProviderWorld({ RATE_LIMIT_PER_MINUTE: '100000' });

/** A software house whose boleto rule leads to the production marketplace. */
let house: SeededKey;
/** A house whose boleto rule leads to a sandbox marketplace holding only its sandbox key (code 301). */
let sandboxHouse: SeededKey;
/** A house routed to a marketplace record without credentials. */
let unusableHouse: SeededKey;
/** A house with no marketplace route (its rules lead to a plain external provider). */
let plainHouse: SeededKey;
let marketplace: string;
let sandboxMatrix: string;

const BANK_ACCOUNT = '9081726354';

async function provider(environment: string, credentials: Record<string, string> | undefined, market = true) {
  const res = await world.app.request('POST', '/admin/providers', {
    headers: world.admin,
    json: {
      name: `Provider ${randomUUID()}`,
      kind: 'external',
      environment,
      enabled_methods: ['pix', 'boleto'],
      is_marketplace: market,
      ...(credentials ? { credentials } : {}),
      payment_host: world.emulator.paymentUrl,
      api_host: world.emulator.apiUrl,
    },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id as string;
}

async function rule(method: string, tenantId: string, providerId: string): Promise<void> {
  const res = await world.app.request('POST', '/admin/rules', {
    headers: world.admin,
    json: { method, tenant_id: tenantId, provider_id: providerId, priority: 1 },
  });
  assert.equal(res.status, 201, res.text);
}

const key = (tenantId: string, opts: Parameters<typeof issueExtraKey>[2] = {}) =>
  issueExtraKey(world.app.gateway.ctx, tenantId, { livemode: true, ...opts });

beforeAll(async () => {
  const ctx = world.app.gateway.ctx;
  marketplace = await provider('production', { api_key: 'emu-production-key' });
  sandboxMatrix = await provider('sandbox', { api_key: 'emu-matrix-sandbox-key' });
  const unusable = await provider('production', undefined);
  const plain = await provider('production', { api_key: 'emu-production-key' }, false);
  house = await seedTenantAndKey(ctx, { livemode: true, tenantName: 'House' });
  sandboxHouse = await seedTenantAndKey(ctx, { livemode: true, tenantName: 'Sandbox house' });
  unusableHouse = await seedTenantAndKey(ctx, { livemode: true, tenantName: 'Unusable house' });
  plainHouse = await seedTenantAndKey(ctx, { livemode: true, tenantName: 'Plain house' });
  // The house's Pix goes elsewhere: the boleto route, first looked at, is the marketplace's.
  await rule('boleto', house.tenantId, marketplace);
  await rule('pix', house.tenantId, plain);
  await rule('boleto', sandboxHouse.tenantId, sandboxMatrix);
  await rule('pix', unusableHouse.tenantId, unusable);
  await rule('boleto', plainHouse.tenantId, plain);
  await rule('pix', plainHouse.tenantId, plain);
  await world.app.settle();
});

const document = () => freshDocument('91');

function company(over: Record<string, unknown> = {}) {
  return {
    name: 'Padaria Central Ltda',
    commercial_name: 'Padaria Central',
    document: document(),
    email: 'financeiro@padaria.example',
    ...COMPANY_PARTS,
    bank_account: { ...COMPANY_PARTS.bank_account, account: BANK_ACCOUNT },
    ...over,
  };
}

const post = (apiKey: string, json: unknown, idempotencyKey: string = randomUUID()) =>
  world.app.request('POST', '/v1/subtenants', {
    headers: { 'x-api-key': apiKey, 'idempotency-key': idempotencyKey },
    json,
  });

const createCalls = async () => (await world.control.calls({ operation: 'subaccount_create' })).length;

const eventCount = async () =>
  Number((await sql<{ n: string }>`select count(*) as n from events`.execute(world.app.db.db)).rows[0]?.n);

async function childCount(parentId: string): Promise<number> {
  await world.app.settle();
  const rows = await world.app.db.db
    .selectFrom('tenants')
    .select('id')
    .where('parent_id', '=', parentId)
    .execute();
  return rows.length;
}

async function linksOf(tenantId: string): Promise<Record<string, unknown>[]> {
  await world.app.settle();
  const res = await world.app.request('GET', `/admin/subaccounts?tenant_id=${tenantId}&limit=100`, {
    headers: world.admin,
  });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

describe('POST /v1/subtenants with subaccount (SPEC 4.13, 2.8, 3.6)', () => {
  test('converted at the marketplace the routing reaches: 201, subaccount active, linked to the child, by this key', async () => {
    const res = await post(house.key, { name: 'Padaria Central', subaccount: company() });
    assert.equal(res.status, 201, res.text);
    const d = res.body.data;
    assert.equal(d.parent_id, house.tenantId);
    assert.match(d.subaccount.id, /^sac_/);
    assert.deepEqual(d.subaccount, {
      id: d.subaccount.id,
      status: 'active',
      last_error_code: null,
      last_provider_error_code: null,
      last_error_message: null,
    });
    assert.equal(await createCalls(), 1);
    assert.ok(!res.text.includes(BANK_ACCOUNT), 'the bank account is never answered');
    const links = await linksOf(d.id);
    assert.equal(links.length, 1);
    assert.equal(links[0]?.id, d.subaccount.id);
    assert.equal(links[0]?.provider_id, marketplace, 'the provider the routing reaches, never the client');
    assert.equal(links[0]?.status, 'active');
    assert.equal(links[0]?.has_production_token, true);
    assert.equal((await linksOf(house.tenantId)).length, 0, 'never linked to the parent');
    // The subaccount events are the calling key's, as the tenant's.
    const audit = await world.app.db.db
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('target_id', 'in', [d.id, d.subaccount.id])
      .execute();
    assert.ok(audit.length >= 2, JSON.stringify(audit));
    for (const a of audit) assert.equal(a.actor, `api_key:${house.keyId}`, JSON.stringify(a));
    assert.ok(audit.some((a) => a.action === 'tenant.created'));
  });

  test("a subtenant's key registers a grandchild: the inherited marketplace route converts it too", async () => {
    const child = await post(house.key, { name: 'Rede Filha' });
    assert.equal(child.status, 201, child.text);
    assert.equal(child.body.data.subaccount, null, 'no subaccount asked');
    const issued = await world.app.request('POST', `/v1/subtenants/${child.body.data.id}/api-keys`, {
      headers: { 'x-api-key': house.key, 'idempotency-key': randomUUID() },
      json: { name: 'child key', scopes: ['subtenants:write'] },
    });
    assert.equal(issued.status, 201, issued.text);
    // Routing reads the tenants read model (as issuance does): with async projections, the child's row first.
    await world.app.settle();
    const res = await post(issued.body.data.key, { name: 'Loja Neta', subaccount: company() });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.parent_id, child.body.data.id);
    assert.equal(res.body.data.subaccount.status, 'active');
    const links = await linksOf(res.body.data.id);
    assert.deepEqual(
      links.map((l) => [l.id, l.provider_id]),
      [[res.body.data.subaccount.id, marketplace]],
    );
  });

  test('provider refusal (1343, the responsible CPF) -> the subtenant exists, subaccount failed, sanitized', async () => {
    const before = await childCount(house.tenantId);
    const c = company({ responsible: { ...company().responsible, document: INVALID_CPF } });
    const res = await post(house.key, { name: 'Recusada', subaccount: c });
    assert.equal(res.status, 201, res.text);
    const s = res.body.data.subaccount;
    assert.equal(s.status, 'failed');
    assert.equal(s.last_provider_error_code, '1343');
    assert.equal(s.last_error_code, 'provider_error');
    assert.equal(s.last_error_message, 'The provider refused the subaccount data.');
    assert.equal(await childCount(house.tenantId), before + 1);
    const links = await linksOf(res.body.data.id);
    assert.equal(links[0]?.status, 'failed');
    assert.equal(links[0]?.provider_reference, null);
  });

  test('SPEC 2.8: a marketplace holding only its sandbox key -> code 301, failed, saying so', async () => {
    const res = await post(sandboxHouse.key, { name: 'Sandbox filha', subaccount: company() });
    assert.equal(res.status, 201, res.text);
    const s = res.body.data.subaccount;
    assert.equal(s.status, 'failed');
    assert.equal(s.last_provider_error_code, '301');
    assert.equal(s.last_error_code, 'matrix_sandbox_key');
    assert.match(s.last_error_message, /sandbox key \(code 301\)/);
    assert.equal((await linksOf(res.body.data.id))[0]?.provider_id, sandboxMatrix);
  });

  test('uncertain (the answer is lost) -> 201, subaccount unknown; a replay shows it as it is, no second call', async () => {
    await world.control.fault({ operation: 'subaccount_create', fault: { type: 'reset' }, commit: true });
    const k = randomUUID();
    const json = { name: 'Incerta', subaccount: company() };
    const res = await post(house.key, json, k);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.subaccount.status, 'unknown');
    assert.equal(res.body.data.subaccount.last_error_message, null);
    assert.equal(await createCalls(), 1);
    // An administrator resolves it (SPEC 3.6); the subtenant's replay then answers the record as it is now.
    const refreshed = await world.app.request(
      'POST',
      `/admin/subaccounts/${res.body.data.subaccount.id}/refresh`,
      { headers: world.admin },
    );
    assert.equal(refreshed.body.data.status, 'active', refreshed.text);
    const replay = await post(house.key, json, k);
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.body.data.id, res.body.data.id);
    assert.equal(replay.body.data.subaccount.id, res.body.data.subaccount.id);
    assert.equal(replay.body.data.subaccount.status, 'active');
    assert.equal(await createCalls(), 1, 'never created twice');
  });

  test('uncertain before the provider did anything (HTTP 500) -> unknown, the subtenant created', async () => {
    await world.control.fault({ operation: 'subaccount_create', fault: { type: 'http_error', status: 500 } });
    const res = await post(house.key, { name: 'Falha 500', subaccount: company() });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.subaccount.status, 'unknown');
    assert.equal(res.body.data.status, 'active');
  });

  test('no marketplace route -> the subtenant created, subaccount not_attempted, nothing sent or stored', async () => {
    const res = await post(plainHouse.key, { name: 'Sem marketplace', subaccount: company() });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.data.subaccount, {
      id: null,
      status: 'not_attempted',
      last_error_code: 'no_marketplace_route',
      last_provider_error_code: null,
      last_error_message:
        'No routing rule of this subtenant reaches a marketplace provider: no subaccount was requested.',
    });
    assert.equal(await createCalls(), 0);
    assert.deepEqual(await linksOf(res.body.data.id), []);
  });

  test('a marketplace record that cannot manage subaccounts (no credentials) -> not_attempted marketplace_unavailable', async () => {
    const res = await post(unusableHouse.key, { name: 'Sem credenciais', subaccount: company() });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.subaccount.status, 'not_attempted');
    assert.equal(res.body.data.subaccount.last_error_code, 'marketplace_unavailable');
    assert.equal(await createCalls(), 0);
    assert.deepEqual(await linksOf(res.body.data.id), []);
  });

  test('replay: 200, same subtenant and subaccount, no second call; another subaccount under the key is 409', async () => {
    const k = randomUUID();
    const json = { name: 'Replay Ltda', subaccount: company() };
    const first = await post(house.key, json, k);
    assert.equal(first.status, 201, first.text);
    const replay = await post(house.key, json, k);
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(replay.body.data, first.body.data);
    assert.equal(await createCalls(), 1);
    const before = await eventCount();
    assertError(await post(house.key, { ...json, subaccount: company() }, k), 409, 'idempotency_conflict');
    assertError(await post(house.key, { name: 'Replay Ltda' }, k), 409, 'idempotency_conflict');
    assert.equal(await eventCount(), before);
    assert.equal(await createCalls(), 1);
  });

  test('8 concurrent identical requests: one subtenant, one provider call, one subaccount', async () => {
    await world.control.fault({ operation: 'subaccount_create', fault: { type: 'latency', ms: 400 } });
    const before = await childCount(house.tenantId);
    const k = randomUUID();
    const json = { name: 'Concorrida', subaccount: company() };
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(house.key, json, k)));
    for (const a of answers) assert.ok([200, 201].includes(a.status), a.text);
    assert.equal(answers.filter((a) => a.status === 201).length, 1);
    assert.equal(new Set(answers.map((a) => a.body.data.id)).size, 1);
    assert.equal(new Set(answers.map((a) => a.body.data.subaccount.id)).size, 1);
    assert.equal(await createCalls(), 1);
    assert.equal(await childCount(house.tenantId), before + 1);
    const links = await linksOf(answers[0]?.body.data.id);
    assert.equal(links.length, 1);
    assert.equal(links[0]?.status, 'active');
  });

  test('SPEC 7: an invalid subaccount is 422 (400 for unknown fields) before anything is stored or sent', async () => {
    const c = company();
    const { bank_account: _omitted, ...withoutBank } = c;
    const cases: [unknown, number, string][] = [
      [{ name: 'X Ltda', subaccount: company({ document: '123' }) }, 422, 'validation_error'],
      [{ name: 'X Ltda', subaccount: company({ email: 'not-an-email' }) }, 422, 'validation_error'],
      [{ name: 'X Ltda', subaccount: withoutBank }, 422, 'validation_error'],
      [
        { name: 'X Ltda', subaccount: company({ address: { ...c.address, state: 'sp' } }) },
        422,
        'validation_error',
      ],
      // The gateway's rule for a null where an object goes (SPEC 4 common rules: null JSON).
      [{ name: 'X Ltda', subaccount: null }, 400, 'invalid_json'],
      // SPEC 1: the client never chooses the provider; the tenant is the new subtenant.
      [{ name: 'X Ltda', subaccount: { ...c, provider_id: marketplace } }, 400, 'invalid_json'],
      [{ name: 'X Ltda', subaccount: { ...c, tenant_id: house.tenantId } }, 400, 'invalid_json'],
      [{ name: 'X', subaccount: company() }, 422, 'validation_error'],
    ];
    const children = await childCount(house.tenantId);
    const before = await eventCount();
    for (const [json, status, code] of cases) assertError(await post(house.key, json), status, code);
    // A refused bank account is not echoed in the error nor logged (SPEC 7 envelope, 2.7).
    const badAccount = '77665544x3';
    const bad = await post(house.key, {
      name: 'X Ltda',
      subaccount: company({ bank_account: { ...c.bank_account, account: badAccount } }),
    });
    assertError(bad, 422, 'validation_error');
    assert.ok(!bad.text.includes(badAccount) && !world.app.logs.join('\n').includes(badAccount), bad.text);
    assert.equal(await eventCount(), before);
    assert.equal(await childCount(house.tenantId), children);
    assert.equal(await createCalls(), 0);
  });

  test('SPEC 5.2-5.4: a test key is 403 forbidden, a developer key and a key without the scope 403 insufficient_scope; nothing stored or sent', async () => {
    const testKey = await key(house.tenantId, { livemode: false });
    const developer = await key(house.tenantId, { accessProfile: 'developer' });
    const noScope = await key(house.tenantId, { scopes: SCOPES.filter((s) => s !== 'subtenants:write') });
    const before = await eventCount();
    const json = { name: 'Bloqueada', subaccount: company() };
    assertError(await post(testKey, json), 403, 'forbidden');
    assertError(await post(developer, json), 403, 'insufficient_scope');
    assertError(await post(noScope, json), 403, 'insufficient_scope');
    assert.equal(await eventCount(), before);
    assert.equal(await createCalls(), 0);
  });

  test('another tenant tree: its key converts under its own routing only, never at the house marketplace', async () => {
    const res = await post(world.stranger.key, { name: 'Outra arvore', subaccount: company() });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.parent_id, world.stranger.tenantId);
    assert.equal(res.body.data.subaccount.status, 'not_attempted');
    assert.equal(await createCalls(), 0);
  });
});

describe('leak (SPEC 2.7: bank data and tokens never stored in clear nor logged)', () => {
  test('the bank account and the provider tokens are absent from every table and the log', async () => {
    const k = randomUUID();
    const json = { name: 'Vazamento', subaccount: company() };
    assert.equal((await post(house.key, json, k)).status, 201);
    assert.equal((await post(house.key, json, k)).status, 200);
    await world.app.settle();
    const res = await fetch(`${world.emulator.url}/_emulator/subaccounts`);
    const held = (await res.json()) as { subaccounts: Record<string, unknown>[] };
    const tokens = held.subaccounts.flatMap((s) =>
      ['Token', 'TokenSandbox', 'SecretKey', 'SecretKeySandbox']
        .map((f) => s[f])
        .filter((v): v is string => typeof v === 'string' && v.length > 0),
    );
    assert.ok(tokens.length >= 4);
    const dump = await dumpEveryTable(world.app.db.db);
    const logs = world.app.logs.join('\n');
    assert.ok(!dump.includes(BANK_ACCOUNT), 'the bank account is not stored');
    assert.ok(!logs.includes(BANK_ACCOUNT), 'the bank account is not logged');
    for (const t of tokens) {
      assert.ok(!dump.includes(t), 'a token is stored in clear');
      assert.ok(!logs.includes(t), 'a token is in the log');
    }
  });
});
