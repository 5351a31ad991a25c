import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, test } from 'vitest';
import { createUser } from '../../src/commands/users/create/handler.ts';
import { identityDeps } from '../../src/commands/users/identity-deps.ts';
import { assertError, bearer, idem, logIn, PASSWORD } from '../support/admin.ts';
import { dumpEveryTable } from '../support/database-dump.ts';
import { useExternalProviderWorld } from '../support/external-provider.ts';
import {
  emulatorProvider,
  freshDocument,
  subaccountRequest,
  subaccountTokensAt,
} from '../support/subaccount-fixtures.ts';

// Issue 28 item 2 (first part): the local subaccount record over the real HTTP stack, PostgreSQL and the
// provider emulator on a socket. Expected values come from SPEC 2.7 (fields; token flags recomputed; sanitized
// errors), 2.8 (matrix production key; 301 for its sandbox key), 3.6 (creating/unknown resolved by consult;
// failed without remote id), 4.14 (reserve before the call; idempotent by provider + key), 5.7 (super_admin
// only) and 7 (error codes).

const world = useExternalProviderWorld({ RATE_LIMIT_PER_MINUTE: '100000' });

let marketplace: string;
let sandboxMatrix: string;
let sandboxWithProductionKey: string;
let roles: { tenant_admin: Record<string, string>; viewer: Record<string, string> };

const provider = (environment: string, credentials: Record<string, string>, isMarketplace = true) =>
  emulatorProvider(world, environment, credentials, isMarketplace);

beforeAll(async () => {
  marketplace = await provider('production', { api_key: 'emu-production-key' });
  sandboxMatrix = await provider('sandbox', { api_key: 'emu-matrix-sandbox-key' });
  sandboxWithProductionKey = await provider('sandbox', {
    api_key: 'emu-matrix-sandbox-key',
    matrix_production_api_key: 'emu-production-key',
  });
  const deps = identityDeps(world.app.gateway.ctx);
  const tokens: Record<string, Record<string, string>> = {};
  for (const role of ['tenant_admin', 'viewer'] as const) {
    const email = `${role}-${randomUUID()}@example.com`;
    await createUser(
      deps,
      { email, password: PASSWORD, role, tenant_id: world.production.tenantId },
      { actor: 'system:test', request_id: 'req_test' },
    );
    tokens[role] = bearer(await logIn(world.app, email));
  }
  roles = tokens as typeof roles;
});

const document = () => freshDocument('81');

const body = (over: Record<string, unknown> = {}) =>
  subaccountRequest(marketplace, world.production.tenantId, document(), over);

const post = (json: unknown, key: string = randomUUID(), headers: Record<string, string> = world.admin) =>
  world.app.request('POST', '/admin/subaccounts', { headers: { ...headers, ...idem(key) }, json });

const eventCount = async () =>
  Number((await sql<{ n: string }>`select count(*) as n from events`.execute(world.app.db.db)).rows[0]?.n);

const createCalls = async () => (await world.control.calls({ operation: 'subaccount_create' })).length;

const emulatorTokens = () => subaccountTokensAt(world.emulator.url);

describe('POST /admin/subaccounts (SPEC 4.14, 2.8, 3.6)', () => {
  test('creates at the provider with the matrix production key: 201 active, remote id, both token flags, no token in the answer', async () => {
    const b = body();
    const res = await post(b);
    assert.equal(res.status, 201, res.text);
    const d = res.body.data;
    assert.match(d.id, /^sac_/);
    assert.equal(d.status, 'active');
    assert.equal(d.provider_id, marketplace);
    assert.equal(d.tenant_id, world.production.tenantId);
    assert.equal(d.document, b.document);
    assert.ok(typeof d.provider_reference === 'string' && d.provider_reference.length > 0);
    assert.equal(d.has_production_token, true);
    assert.equal(d.has_sandbox_token, true);
    assert.equal(d.last_provider_error_code, null);
    assert.equal(d.last_error_message, null);
    assert.equal(await createCalls(), 1);
    for (const t of await emulatorTokens()) assert.ok(!res.text.includes(t));
    assert.ok(!res.text.includes('4455667'), 'the bank account is never answered');
    await world.app.settle();
    const got = await world.app.request('GET', `/admin/subaccounts/${d.id}`, { headers: world.admin });
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.data, d);
  });

  test('a sandbox marketplace uses its matrix_production_api_key, never its sandbox key (SPEC 2.8)', async () => {
    const res = await post(body({ provider_id: sandboxWithProductionKey }));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.status, 'active');
  });

  test('SPEC 2.8: the matrix sandbox key gets code 301 -> failed, sanitized, no remote id; a new key makes a new attempt', async () => {
    const b = body({ provider_id: sandboxMatrix });
    const res = await post(b);
    assert.equal(res.status, 201, res.text);
    const d = res.body.data;
    assert.equal(d.status, 'failed');
    assert.equal(d.provider_reference, null);
    assert.equal(d.last_provider_error_code, '301');
    assert.equal(d.last_error_code, 'matrix_sandbox_key');
    assert.match(d.last_error_message, /sandbox key \(code 301\)/);
    assert.equal(d.has_production_token, false);
    const again = await post(b);
    assert.equal(again.status, 201);
    assert.notEqual(again.body.data.id, d.id);
  });

  test('idempotent by provider + key: replay 200 with Idempotency-Replayed, no second call; other body 409', async () => {
    const key = randomUUID();
    const b = body();
    const first = await post(b, key);
    assert.equal(first.status, 201, first.text);
    const replay = await post(b, key);
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.headers.get('idempotency-replayed'), 'true');
    assert.equal(replay.body.data.id, first.body.data.id);
    assert.equal(await createCalls(), 1);
    assertError(await post(body(), key), 409, 'idempotency_conflict');
    // The scope is the provider: the same key on another marketplace is another creation.
    const other = await post(body({ provider_id: sandboxWithProductionKey }), key);
    assert.equal(other.status, 201, other.text);
    assert.notEqual(other.body.data.id, first.body.data.id);
  });

  test('reserve -> call -> record: 8 concurrent identical requests make ONE provider call and one record', async () => {
    await world.control.fault({ operation: 'subaccount_create', fault: { type: 'latency', ms: 400 } });
    const key = randomUUID();
    const b = body();
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(b, key)));
    for (const a of answers) assert.ok([200, 201, 202].includes(a.status), a.text);
    assert.equal(new Set(answers.map((a) => a.body.data.id)).size, 1);
    assert.equal(answers.filter((a) => a.status === 201).length, 1);
    assert.equal(await createCalls(), 1);
    await world.app.settle();
    const list = await world.app.request('GET', `/admin/subaccounts?provider_id=${marketplace}&limit=100`, {
      headers: world.admin,
    });
    assert.equal(list.body.data.filter((s: { document: string }) => s.document === b.document).length, 1);
  });

  test('uncertain (answer lost after the provider created it) -> 202 unknown -> refresh finds it by document -> active', async () => {
    await world.control.fault({ operation: 'subaccount_create', fault: { type: 'reset' }, commit: true });
    const res = await post(body());
    assert.equal(res.status, 202, res.text);
    const d = res.body.data;
    assert.equal(d.status, 'unknown');
    assert.equal(d.has_production_token, false);
    const refreshed = await world.app.request('POST', `/admin/subaccounts/${d.id}/refresh`, {
      headers: world.admin,
    });
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.equal(refreshed.body.data.status, 'active');
    assert.equal(refreshed.body.data.has_production_token, true);
    assert.equal(refreshed.body.data.has_sandbox_token, true);
    assert.equal(await createCalls(), 1, 'never created twice');
    assert.equal((await world.control.calls({ operation: 'subaccount_list' })).length >= 1, true);
  });

  test('uncertain before the provider did anything -> refresh finds none -> failed without remote id; new key retries', async () => {
    await world.control.fault({ operation: 'subaccount_create', fault: { type: 'http_error', status: 500 } });
    const b = body();
    const res = await post(b);
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.data.status, 'unknown');
    const refreshed = await world.app.request('POST', `/admin/subaccounts/${res.body.data.id}/refresh`, {
      headers: world.admin,
    });
    assert.equal(refreshed.body.data.status, 'failed');
    assert.equal(refreshed.body.data.provider_reference, null);
    assert.equal(refreshed.body.data.last_error_code, 'not_found_at_provider');
    const retry = await post(b);
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.body.data.status, 'active');
    // A refresh of a settled record calls nothing.
    const before = (await world.control.calls()).length;
    const again = await world.app.request('POST', `/admin/subaccounts/${retry.body.data.id}/refresh`, {
      headers: world.admin,
    });
    assert.equal(again.body.data.status, 'active');
    assert.equal((await world.control.calls()).length, before);
  });

  test('SPEC 7: invalid bodies are 422/400 with no event appended and no provider call', async () => {
    const cases: [unknown, number, string][] = [
      [body({ document: '123' }), 422, 'validation_error'],
      [body({ provider_id: 'prv_nope' }), 422, 'validation_error'],
      [body({ tenant_id: 'ten_nope' }), 422, 'validation_error'],
      [body({ email: 'not-an-email' }), 422, 'validation_error'],
      [{ ...body(), token: 'x' }, 400, 'invalid_json'],
    ];
    const notMarketplace = await provider('production', { api_key: 'emu-production-key' }, false);
    cases.push([body({ provider_id: notMarketplace }), 422, 'validation_error']);
    const before = await eventCount();
    for (const [json, status, code] of cases) assertError(await post(json), status, code);
    assertError(
      await world.app.request('POST', '/admin/subaccounts', { headers: world.admin, json: body() }),
      400,
      'idempotency_key_required',
    );
    assert.equal(await eventCount(), before);
    assert.equal(await createCalls(), 0);
  });
});

describe('reads (SPEC 2.7, 4.14)', () => {
  test('list filters by provider, tenant and status; unknown id 404', async () => {
    const a = await post(body({ tenant_id: world.sandbox.tenantId }));
    const f = await post(body({ provider_id: sandboxMatrix, tenant_id: world.sandbox.tenantId }));
    await world.app.settle();
    const q = async (query: string) =>
      (
        await world.app.request('GET', `/admin/subaccounts?limit=100&${query}`, { headers: world.admin })
      ).body.data.map((s: { id: string }) => s.id);
    const byTenant = await q(`tenant_id=${world.sandbox.tenantId}`);
    assert.ok(byTenant.includes(a.body.data.id) && byTenant.includes(f.body.data.id));
    const failed = await q(`tenant_id=${world.sandbox.tenantId}&status=failed`);
    assert.deepEqual(failed, [f.body.data.id]);
    const byProvider = await q(`provider_id=${sandboxMatrix}&tenant_id=${world.sandbox.tenantId}`);
    assert.deepEqual(byProvider, [f.body.data.id]);
    assertError(
      await world.app.request('GET', '/admin/subaccounts/sac_nope', { headers: world.admin }),
      404,
      'not_found',
    );
    assertError(
      await world.app.request('GET', '/admin/subaccounts?status=bogus', { headers: world.admin }),
      422,
      'validation_error',
    );
  });

  test('has_*_token are recomputed on read: false when the stored ciphertext does not open', async () => {
    const res = await post(body());
    const id = res.body.data.id;
    await world.app.settle();
    // A ciphertext of another record: bound to its id, it does not open here.
    const other = await post(body());
    await world.app.settle();
    const sealed = await world.app.db.db
      .selectFrom('subaccounts')
      .select('tokens_ciphertext')
      .where('id', '=', other.body.data.id)
      .executeTakeFirstOrThrow();
    await world.app.db.db
      .updateTable('subaccounts')
      .set({ tokens_ciphertext: sealed.tokens_ciphertext })
      .where('id', '=', id)
      .execute();
    const list = await world.app.request('GET', `/admin/subaccounts?limit=100&provider_id=${marketplace}`, {
      headers: world.admin,
    });
    const row = list.body.data.find((s: { id: string }) => s.id === id);
    assert.equal(row.has_production_token, false);
    assert.equal(row.has_sandbox_token, false);
  });
});

describe('PATCH /admin/subaccounts/{id}/credentials (SPEC 4.14)', () => {
  const patch = (id: string, json: unknown) =>
    world.app.request('PATCH', `/admin/subaccounts/${id}/credentials`, { headers: world.admin, json });

  test("replaces only the token of the provider's environment, no provider call; stale expected_updated_at is 409 subaccount_changed", async () => {
    const created = await post(body({ provider_id: sandboxWithProductionKey }));
    const d = created.body.data;
    const calls = (await world.control.calls()).length;
    const stale = await patch(d.id, {
      api_key: 'x-new-sandbox-token-1',
      expected_updated_at: '2020-01-01T00:00:00.000Z',
    });
    assertError(stale, 409, 'subaccount_changed');
    const token = `sandbox-token-${randomUUID()}`;
    const res = await patch(d.id, { api_key: token, expected_updated_at: d.updated_at });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.has_sandbox_token, true);
    assert.equal(res.body.data.has_production_token, true, 'the other environment is kept');
    assert.equal(res.body.data.status, 'active');
    assert.notEqual(res.body.data.updated_at, d.updated_at);
    assert.equal((await world.control.calls()).length, calls, 'no remote call');
    // The read it was made from is now stale.
    assertError(
      await patch(d.id, { api_key: token, expected_updated_at: d.updated_at }),
      409,
      'subaccount_changed',
    );
    await world.app.settle();
    const dump = await dumpEveryTable(world.app.db.db);
    assert.ok(
      !dump.includes(token) && !world.app.logs.join('\n').includes(token) && !res.text.includes(token),
    );
    const audit = await world.app.request('GET', '/admin/audit?limit=100', { headers: world.admin });
    assert.ok(audit.text.includes('subaccount.token_replaced'), audit.text.slice(0, 300));
  });

  test('two concurrent changes from the same read: one 200, the other 409 subaccount_changed', async () => {
    const d = (await post(body())).body.data;
    const answers = await Promise.all(
      ['a', 'b', 'c'].map((n) => patch(d.id, { api_key: `token-${n}`, expected_updated_at: d.updated_at })),
    );
    assert.equal(answers.filter((a) => a.status === 200).length, 1, answers.map((a) => a.text).join('\n'));
    for (const a of answers.filter((x) => x.status !== 200)) assertError(a, 409, 'subaccount_changed');
  });

  test('an unknown record has no tokens to replace (409 conflict); a missing one 404; bad bodies 422/400, no event', async () => {
    await world.control.fault({ operation: 'subaccount_create', fault: { type: 'http_error', status: 500 } });
    const d = (await post(body())).body.data;
    assert.equal(d.status, 'unknown');
    const before = await eventCount();
    assertError(await patch(d.id, { api_key: 't', expected_updated_at: d.updated_at }), 409, 'conflict');
    assertError(
      await patch('sac_nope', { api_key: 't', expected_updated_at: d.updated_at }),
      404,
      'not_found',
    );
    assertError(
      await patch(d.id, { api_key: '', expected_updated_at: d.updated_at }),
      422,
      'validation_error',
    );
    assertError(await patch(d.id, { api_key: 't' }), 422, 'validation_error');
    assertError(
      await patch(d.id, { api_key: 't', expected_updated_at: d.updated_at, sandbox: true }),
      400,
      'invalid_json',
    );
    assert.equal(await eventCount(), before);
  });
});

describe('SPEC 7 409 marketplace_has_subaccounts (PATCH /admin/providers/{id})', () => {
  const patchProvider = (id: string, json: unknown) =>
    world.app.request('PATCH', `/admin/providers/${id}`, { headers: world.admin, json });

  test('the matrix key cannot change while a link that is not failed exists; other changes pass', async () => {
    const p = await provider('production', { api_key: 'emu-production-key' });
    assert.equal(
      (await patchProvider(p, { credentials: { api_key: 'another-key' } })).status,
      200,
      'no link yet',
    );
    assert.equal((await patchProvider(p, { credentials: { api_key: 'emu-production-key' } })).status, 200);
    const link = await post(body({ provider_id: p }));
    assert.equal(link.body.data.status, 'active', link.text);
    const before = await eventCount();
    assertError(
      await patchProvider(p, { credentials: { api_key: 'another-key' } }),
      409,
      'marketplace_has_subaccounts',
    );
    assertError(
      await patchProvider(p, {
        credentials: { api_key: 'emu-production-key', matrix_production_api_key: 'other' },
      }),
      409,
      'marketplace_has_subaccounts',
    );
    assert.equal(await eventCount(), before);
    assert.equal((await patchProvider(p, { name: 'Renamed marketplace' })).status, 200);
    assert.equal((await patchProvider(p, { credentials: { api_key: 'emu-production-key' } })).status, 200);
  });

  test('only failed links: the matrix key may change', async () => {
    const p = await provider('sandbox', { api_key: 'emu-matrix-sandbox-key' });
    assert.equal((await post(body({ provider_id: p }))).body.data.status, 'failed');
    const res = await patchProvider(p, {
      credentials: { api_key: 'emu-matrix-sandbox-key', matrix_production_api_key: 'emu-production-key' },
    });
    assert.equal(res.status, 200, res.text);
  });
});

describe('POST /admin/subaccounts/{id}/link (SPEC 4.14: verified id, document and tokens recover an unknown record)', () => {
  async function remote(documentNumber: string): Promise<Record<string, unknown>> {
    const res = await fetch(`${world.emulator.url}/_emulator/subaccounts`);
    const json = (await res.json()) as { subaccounts: Record<string, unknown>[] };
    const found = json.subaccounts.find((s) => s.Identity === documentNumber);
    assert.ok(found, 'the emulator holds the account');
    return found;
  }

  test('wrong id, document or token is 422 with nothing changed; the right ones make it active with no second creation', async () => {
    await world.control.fault({ operation: 'subaccount_create', fault: { type: 'reset' }, commit: true });
    const b = body();
    const d = (await post(b)).body.data;
    assert.equal(d.status, 'unknown');
    const other = await post(body());
    const mine = await remote(b.document);
    const theirs = await remote(other.body.data.document);
    const link = (json: unknown) =>
      world.app.request('POST', `/admin/subaccounts/${d.id}/link`, { headers: world.admin, json });
    const before = await eventCount();
    const ref = String(mine.Id);
    const token = String(mine.Token);
    const r1 = await link({ provider_reference: ref, production_token: 'not-the-token' });
    assertError(r1, 422, 'validation_error');
    assert.equal(r1.body.error.param, 'production_token');
    assertError(await link({ provider_reference: ref, sandbox_token: token }), 422, 'validation_error');
    assertError(
      await link({ provider_reference: String(theirs.Id), production_token: String(theirs.Token) }),
      422,
      'validation_error',
    );
    assertError(
      await link({ provider_reference: '999999999', production_token: token }),
      422,
      'validation_error',
    );
    assertError(await link({ provider_reference: ref }), 422, 'validation_error');
    assert.equal(await eventCount(), before);
    const ok = await link({
      provider_reference: ref,
      production_token: token,
      sandbox_token: String(mine.TokenSandbox),
    });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.data.status, 'active');
    assert.equal(ok.body.data.provider_reference, ref);
    assert.equal(ok.body.data.has_production_token, true);
    assert.ok(!ok.text.includes(token));
    assert.equal(await createCalls(), 2, 'one creation per record, none by the link');
    assertError(await link({ provider_reference: ref, production_token: token }), 409, 'conflict');
  });
});

describe('disable/enable a link (SPEC 4.14 "Disabling a link is local")', () => {
  test('active -> disabled -> active with no provider call; repeats change nothing; not active yet is 409', async () => {
    const d = (await post(body())).body.data;
    const calls = (await world.control.calls()).length;
    const act = (path: string) =>
      world.app.request('POST', `/admin/subaccounts/${path}`, { headers: world.admin });
    const off = await act(`${d.id}/disable`);
    assert.equal(off.status, 200, off.text);
    assert.equal(off.body.data.status, 'disabled');
    assert.equal(off.body.data.has_production_token, true, 'tokens are kept');
    const before = await eventCount();
    assert.equal((await act(`${d.id}/disable`)).body.data.status, 'disabled');
    assert.equal(await eventCount(), before);
    await world.app.settle();
    const listed = await world.app.request('GET', `/admin/subaccounts?status=disabled&limit=100`, {
      headers: world.admin,
    });
    assert.ok(listed.body.data.some((s: { id: string }) => s.id === d.id));
    assert.equal((await act(`${d.id}/enable`)).body.data.status, 'active');
    assert.equal((await world.control.calls()).length, calls);
    const failed = (await post(body({ provider_id: sandboxMatrix }))).body.data;
    assertError(await act(`${failed.id}/disable`), 409, 'conflict');
    assertError(await act(`${failed.id}/enable`), 409, 'conflict');
    assertError(await act('sac_nope/disable'), 404, 'not_found');
  });
});

describe('SPEC 5.7 "Subaccounts": super_admin only', () => {
  test('tenant_admin and viewer 403; no session 401; an API key is no panel credential (401)', async () => {
    const created = await post(body());
    const id = created.body.data.id;
    const calls: [string, string, unknown?][] = [
      ['POST', '/admin/subaccounts', body()],
      ['GET', '/admin/subaccounts'],
      ['GET', `/admin/subaccounts/${id}`],
      ['POST', `/admin/subaccounts/${id}/refresh`],
      ['POST', `/admin/subaccounts/${id}/disable`],
      ['POST', `/admin/subaccounts/${id}/link`, { provider_reference: '1', production_token: 't' }],
      ['POST', `/admin/subaccounts/${id}/enable`],
      [
        'PATCH',
        `/admin/subaccounts/${id}/credentials`,
        { api_key: 't', expected_updated_at: created.body.data.updated_at },
      ],
    ];
    const before = await eventCount();
    for (const [method, path, json] of calls) {
      for (const role of ['tenant_admin', 'viewer'] as const) {
        const res = await world.app.request(method, path, { json, headers: { ...roles[role], ...idem() } });
        assertError(res, 403, 'forbidden');
      }
      assertError(await world.app.request(method, path, { json, headers: idem() }), 401, 'unauthorized');
      for (const key of [world.production.key, world.productionTestKey]) {
        const res = await world.app.request(method, path, { json, headers: { 'x-api-key': key, ...idem() } });
        assertError(res, 401, 'unauthorized');
      }
    }
    assert.equal(await eventCount(), before);
  });
});

describe('token leak (SPEC 2.7: tokens never in any DTO, log or stored in clear)', () => {
  test("no emulator token appears in any table, any event or the gateway's log", async () => {
    await post(body());
    await world.app.settle();
    const tokens = await emulatorTokens();
    assert.ok(tokens.length >= 4);
    const dump = await dumpEveryTable(world.app.db.db);
    const logs = world.app.logs.join('\n');
    for (const t of tokens) {
      assert.ok(!dump.includes(t), 'a token is stored in clear');
      assert.ok(!logs.includes(t), 'a token is in the log');
    }
    assert.ok(!dump.includes('4455667'), 'the bank account is not stored');
    assert.ok(!logs.includes('4455667'));
  });
});
