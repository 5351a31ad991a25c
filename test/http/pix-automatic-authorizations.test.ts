import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import {
  type AuthorizationCommand,
  type AuthorizationReservedData,
  pixAutomaticAuthorization,
} from '../../src/aggregates/pix-automatic-authorization.ts';
import { handleCommand } from '../../src/commands/command-handler.ts';
import { authorizationExpiryJob } from '../../src/commands/pix-automatic/authorizations/expire/job.ts';
import { authorizationStream } from '../../src/commands/pix-automatic/authorizations/load.ts';
import { newId } from '../../src/ids.ts';
import { assertError } from '../support/admin.ts';
import { pixBody } from '../support/charges.ts';
import { commandDeps, type SeededKey, seedChildTenant, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';
import { jobDeps } from '../support/jobs.ts';
import { extraKey } from '../support/keys.ts';
import { dueIn } from '../support/subscriptions.ts';

/**
 * Pix Automatic authorizations over HTTP on the simulator (issue 27 item 1; SPEC 2.6, 3.2, 4 common rules,
 * 4.11, 5.3, 5.4, 5.5, 7, 8): test keys (and a live key whose Pix rule is the simulator's), every endpoint with
 * its access rules, the SPEC 3.2 moves a test key can make, and the expiry job. The external provider over
 * the emulator is test/http/pix-automatic-authorizations-external.test.ts.
 */

const ROUTE = '/v1/pix-automatic/authorizations';
const metadata = { actor: 'system:test', request_id: 'req_test' };
const DAY = 24 * 60 * 60 * 1000;
let app: TestApp;
let parent: SeededKey;
let child: SeededKey;
let outsider: SeededKey;
let parentLive: string;
let readOnly: string;
let pixOnly: string;
let developer: string;
/** The instant the gateway's clock reads; null: the real time. */
let frozen: Date | null = null;

/** The complete payer of SPEC 4.10 (as the charges' tests send it). */
const payer = () => pixBody().customer as { name: string; email: string; [field: string]: unknown };

function body(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Academia Forma',
    description: 'Mensalidade',
    amount: 9990,
    first_due_date: dueIn(10),
    interval_months: 1,
    customer: payer(),
    ...over,
  };
}
function post(key: string, json: unknown, idempotencyKey: string | null = randomUUID()) {
  return app.request('POST', ROUTE, {
    headers: { 'x-api-key': key, ...(idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey }) },
    json,
  });
}
const get = (key: string, path: string) => app.request('GET', path, { headers: { 'x-api-key': key } });
const refresh = (key: string, id: string) =>
  app.request('POST', `${ROUTE}/${id}/refresh`, { headers: { 'x-api-key': key } });
const simulate = (key: string, id: string, status: string) =>
  app.request('POST', `${ROUTE}/${id}/simulate`, { headers: { 'x-api-key': key }, json: { status } });
const revoke = (key: string, id: string) =>
  app.request('DELETE', `${ROUTE}/${id}`, { headers: { 'x-api-key': key } });

// biome-ignore lint/suspicious/noExplicitAny: response JSON, already validated against /openapi.json
async function created(key: string, over: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await post(key, body(over));
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

async function listIds(key: string, query = ''): Promise<string[]> {
  await app.settle();
  const res = await get(key, `${ROUTE}${query}`);
  assert.equal(res.status, 200, res.text);
  return res.body.data.map((a: { id: string }) => a.id);
}

/** An authorization left where a test needs it, its events appended as the gateway would (SPEC 3.2). */
async function given(tenantId: string, commands: readonly AuthorizationCommand[]): Promise<string> {
  const id = newId('pxa');
  const data: AuthorizationReservedData = {
    authorization_id: id,
    tenant_id: tenantId,
    livemode: false,
    simulated: true,
    environment: 'sandbox',
    provider_id: null,
    name: 'Academia Forma',
    description: 'Mensalidade',
    amount: 9990,
    first_due_date: dueIn(10),
    interval_months: 1,
    customer: payer() as unknown as AuthorizationReservedData['customer'],
    created_at: new Date().toISOString(),
  };
  const deps = commandDeps(app.gateway.ctx);
  for (const command of [{ kind: 'create', data } as const, ...commands]) {
    await handleCommand(deps, pixAutomaticAuthorization, authorizationStream(id), command, { metadata });
  }
  return id;
}

beforeAll(async () => {
  app = await startTestApp({ ENABLE_SIMULATOR: 'true' });
  app.gateway.ctx.now = () => frozen ?? new Date();
  parent = await seedTenantAndKey(app.gateway.ctx, { tenantName: 'Academia Forma' });
  child = await seedChildTenant(app.gateway.ctx, parent.tenantId);
  outsider = await seedTenantAndKey(app.gateway.ctx);
  parentLive = await extraKey(app.gateway.ctx, parent.tenantId, { livemode: true });
  readOnly = await extraKey(app.gateway.ctx, parent.tenantId, { scopes: ['transactions:read'] });
  pixOnly = await extraKey(app.gateway.ctx, parent.tenantId, { scopes: ['pix:write'] });
  developer = await extraKey(app.gateway.ctx, parent.tenantId, { accessProfile: 'developer' });
});

afterAll(async () => {
  await app.close();
});

describe('POST /v1/pix-automatic/authorizations (SPEC 3.2, 4 common rules, 4.11)', () => {
  test('201 pending with the simulator marker as copy_paste; GET answers the same record', async () => {
    const before = Date.now();
    const res = await post(parent.key, body());
    assert.equal(res.status, 201, res.text);
    const a = res.body.data;
    assert.match(a.id, /^pxa_/);
    assert.equal(a.tenant_id, parent.tenantId);
    assert.equal(a.livemode, false);
    assert.equal(a.simulated, true);
    assert.equal(a.environment, 'sandbox');
    assert.equal(a.status, 'pending');
    assert.equal(a.name, 'Academia Forma');
    assert.equal(a.description, 'Mensalidade');
    assert.equal(a.amount, 9990);
    assert.equal(a.first_due_date, dueIn(10));
    assert.equal(a.interval_months, 1);
    // SPEC 1, 4.11: a test copy_paste is a marker no bank accepts.
    assert.equal(a.copy_paste, `SIMULADOR-TESTE-NAO-PAGAVEL-${a.id}`);
    assert.equal(a.provider_reference, `sim_${a.id}`);
    assert.equal(a.approved_at, null);
    // SPEC 4.11: the payer has 24 hours to approve.
    const createdAt = new Date(a.created_at).getTime();
    assert.ok(createdAt >= before - 1000 && createdAt <= Date.now() + 1000);
    assert.equal(new Date(a.approval_deadline).getTime(), createdAt + DAY);
    assert.equal(a.provider_error_code, null);
    assert.equal(a.customer_name, payer().name);
    // The payer's contact and address never come back.
    assert.equal(a.customer, undefined);
    assert.equal(JSON.stringify(a).includes(payer().email), false);
    const got = await get(parent.key, `${ROUTE}/${a.id}`);
    assert.equal(got.status, 200, got.text);
    assert.deepEqual(got.body.data, a);
  });

  test('every interval of SPEC 4.11 (1, 3, 6, 12 months)', async () => {
    for (const interval_months of [1, 3, 6, 12]) {
      assert.equal((await created(parent.key, { interval_months })).interval_months, interval_months);
    }
  });

  test('replay: 200 with Idempotency-Replayed and the record as it is now; another body 409 idempotency_conflict', async () => {
    const key = randomUUID();
    const first = await post(parent.key, body(), key);
    assert.equal(first.status, 201, first.text);
    const again = await post(parent.key, body(), key);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(again.body.data, first.body.data);
    assertError(await post(parent.key, body({ amount: 100 }), key), 409, 'idempotency_conflict');
    // Property order does not matter (SPEC 4 common rules).
    const reordered = Object.fromEntries(Object.entries(body()).reverse());
    assert.equal((await post(parent.key, reordered, key)).status, 200);
    // A replay after the approval the record now holds answers it as it is now, never re-validated.
    assert.equal((await simulate(parent.key, first.body.data.id, 'approved')).status, 200);
    frozen = new Date(Date.now() + 20 * DAY);
    try {
      const late = await post(parent.key, body(), key);
      assert.equal(late.status, 200, late.text);
      assert.equal(late.body.data.status, 'approved');
    } finally {
      frozen = null;
    }
    assert.deepEqual(await listIds(parent.key), [...new Set(await listIds(parent.key))]);
  });

  test('the same body sent at once under one key makes one authorization (SPEC 4 common rules)', async () => {
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(parent.key, body(), key)));
    const ids = new Set(answers.map((r) => r.body.data.id));
    assert.equal(ids.size, 1);
    assert.equal(answers.filter((r) => r.status === 201).length, 1, answers.map((r) => r.status).join());
    for (const r of answers) assert.ok([200, 201, 202].includes(r.status), r.text);
  });

  test('400 idempotency_key_required without or with an invalid Idempotency-Key', async () => {
    assertError(await post(parent.key, body(), null), 400, 'idempotency_key_required');
    assertError(await post(parent.key, body(), 'chave com espaço'), 400, 'idempotency_key_required');
  });

  test('422 validation_error for each invalid field, before anything is stored (SPEC 4.10, 4.11, 8)', async () => {
    const before = await listIds(parent.key, '?limit=100');
    const { phone: _p, ...noPhone } = payer();
    const { address: _a, ...noAddress } = payer();
    const { document: _d, ...noDocument } = payer();
    const cases: Array<[Record<string, unknown>, string]> = [
      [body({ first_due_date: dueIn(1) }), 'first_due_date'],
      [body({ first_due_date: dueIn(0) }), 'first_due_date'],
      [body({ first_due_date: '2026-02-30' }), 'first_due_date'],
      [body({ interval_months: 2 }), 'interval_months'],
      [body({ interval_months: 24 }), 'interval_months'],
      [body({ amount: 0 }), 'amount'],
      [body({ amount: 100_000_001 }), 'amount'],
      [body({ name: 'x'.repeat(101) }), 'name'],
      [body({ name: ' ' }), 'name'],
      [body({ description: 'x'.repeat(201) }), 'description'],
      [body({ customer: noPhone }), 'customer.phone'],
      [body({ customer: noAddress }), 'customer.address'],
      [body({ customer: noDocument }), 'customer.document'],
    ];
    for (const [json, param] of cases) {
      const res = await post(parent.key, json);
      assertError(res, 422, 'validation_error');
      assert.ok(
        JSON.stringify(res.body.error).includes(param.split('.')[0] as string),
        `${param}: ${res.text}`,
      );
    }
    // 2 days ahead is the first date allowed.
    assert.equal((await post(parent.key, body({ first_due_date: dueIn(2) }))).status, 201);
    const { description: _desc, ...noDescription } = body();
    assertError(await post(parent.key, noDescription), 422, 'validation_error');
    const after = await listIds(parent.key, '?limit=100');
    assert.equal(after.length, before.length + 1);
  });

  test('422 tenant_from_api_key; 400 invalid_json for an unknown field (SPEC 4 common rules, 5.5)', async () => {
    assertError(await post(parent.key, body({ tenant_id: child.tenantId })), 422, 'tenant_from_api_key');
    assertError(await post(parent.key, body({ provider_id: 'prv_x' })), 400, 'invalid_json');
    assertError(await post(parent.key, body({ method: 'pix' })), 400, 'invalid_json');
  });

  test('a live key whose Pix rule is the simulator: livemode true, simulated (SPEC 1, 2.8)', async () => {
    const a = await created(parentLive);
    assert.equal(a.livemode, true);
    assert.equal(a.simulated, true);
    assert.equal(a.status, 'pending');
    // SPEC 4.10: the other mode's ids are 404.
    assertError(await get(parent.key, `${ROUTE}/${a.id}`), 404, 'not_found');
    assert.ok(!(await listIds(parent.key, '?limit=100')).includes(a.id));
    assert.ok((await listIds(parentLive)).includes(a.id));
  });

  test('SPEC 5.4: a developer key creates, reads, refreshes, simulates and revokes authorizations', async () => {
    const a = await created(developer);
    assert.equal((await get(developer, `${ROUTE}/${a.id}`)).status, 200);
    assert.equal((await refresh(developer, a.id)).status, 200);
    assert.equal((await simulate(developer, a.id, 'approved')).status, 200);
    assert.equal((await revoke(developer, a.id)).body.data.status, 'cancelled');
  });
});

describe('access to every endpoint (SPEC 4.10, 5.3, 5.5, 7)', () => {
  test('401 unauthorized without a key or with an unknown one', async () => {
    const a = await created(parent.key);
    const none = { headers: {} };
    for (const [method, path] of [
      ['POST', ROUTE],
      ['GET', ROUTE],
      ['GET', `${ROUTE}/${a.id}`],
      ['POST', `${ROUTE}/${a.id}/refresh`],
      ['POST', `${ROUTE}/${a.id}/simulate`],
      ['DELETE', `${ROUTE}/${a.id}`],
    ] as const) {
      assertError(await app.request(method, path, none), 401, 'unauthorized');
      assertError(
        await app.request(method, path, { headers: { 'x-api-key': 'sk_test_unknown' } }),
        401,
        'unauthorized',
      );
    }
  });

  test('403 insufficient_scope: writes need pix:write, reads transactions:read', async () => {
    const a = await created(parent.key);
    assertError(await post(readOnly, body()), 403, 'insufficient_scope');
    assertError(await refresh(readOnly, a.id), 403, 'insufficient_scope');
    assertError(await simulate(readOnly, a.id, 'approved'), 403, 'insufficient_scope');
    assertError(await revoke(readOnly, a.id), 403, 'insufficient_scope');
    assertError(await get(pixOnly, ROUTE), 403, 'insufficient_scope');
    assertError(await get(pixOnly, `${ROUTE}/${a.id}`), 403, 'insufficient_scope');
    // And each scope is enough for its side.
    assert.equal((await get(readOnly, `${ROUTE}/${a.id}`)).status, 200);
    assert.equal((await post(pixOnly, body())).status, 201);
    assert.equal((await get(parent.key, `${ROUTE}/${a.id}`)).body.data.status, 'pending');
  });

  test("a descendant's authorization: read by the parent, 403 forbidden to change; other trees and modes 404", async () => {
    const a = await created(child.key);
    assert.equal((await get(parent.key, `${ROUTE}/${a.id}`)).status, 200);
    assertError(await refresh(parent.key, a.id), 403, 'forbidden');
    assertError(await simulate(parent.key, a.id, 'approved'), 403, 'forbidden');
    assertError(await revoke(parent.key, a.id), 403, 'forbidden');
    for (const key of [outsider.key, parentLive]) {
      assertError(await get(key, `${ROUTE}/${a.id}`), 404, 'not_found');
      assertError(await refresh(key, a.id), 404, 'not_found');
      assertError(await revoke(key, a.id), 404, 'not_found');
    }
    assertError(await simulate(outsider.key, a.id, 'approved'), 404, 'not_found');
    // The child's own key changes it; nothing moved before.
    assert.equal((await get(child.key, `${ROUTE}/${a.id}`)).body.data.status, 'pending');
    assert.equal((await revoke(child.key, a.id)).body.data.status, 'cancelled');
    assertError(await get(parent.key, `${ROUTE}/pxa_missing`), 404, 'not_found');
    assertError(await get(parent.key, `${ROUTE}/txn_x`), 404, 'not_found');
  });

  test('GET list: the key tenant, newest first, {data, meta}; tenant_id and include_descendants (SPEC 4.3)', async () => {
    const own = await created(parent.key);
    const childs = await created(child.key);
    await app.settle();
    const res = await get(parent.key, `${ROUTE}?limit=2`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.meta, { limit: 2, offset: 0, count: 2 });
    assert.equal(res.body.data[0].id, own.id);
    assert.ok(!(await listIds(parent.key, '?limit=100')).includes(childs.id));
    assert.ok((await listIds(parent.key, '?limit=100&include_descendants=true')).includes(childs.id));
    assert.deepEqual(await listIds(parent.key, `?tenant_id=${child.tenantId}`), await listIds(child.key));
    assertError(await get(child.key, `${ROUTE}?tenant_id=${parent.tenantId}`), 404, 'not_found');
    assertError(await get(parent.key, `${ROUTE}?limit=0`), 422, 'validation_error');
    const page2 = await get(parent.key, `${ROUTE}?limit=1&offset=1`);
    assert.deepEqual(page2.body.meta, { limit: 1, offset: 1, count: 1 });
    assert.notEqual(page2.body.data[0].id, own.id);
  });
});

describe('simulate (SPEC 3.2, 4.7, 4.11)', () => {
  test('pending -> approved (approved_at), then cancelled; a second approval 409 simulation_not_allowed', async () => {
    const a = await created(parent.key);
    const approved = await simulate(parent.key, a.id, 'approved');
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.data.status, 'approved');
    assert.ok(approved.body.data.approved_at);
    assertError(await simulate(parent.key, a.id, 'approved'), 409, 'simulation_not_allowed');
    assertError(await simulate(parent.key, a.id, 'expired'), 409, 'simulation_not_allowed');
    const cancelled = await simulate(parent.key, a.id, 'cancelled');
    assert.equal(cancelled.body.data.status, 'cancelled');
    // Final: nothing moves it.
    for (const status of ['approved', 'cancelled', 'expired']) {
      assertError(await simulate(parent.key, a.id, status), 409, 'simulation_not_allowed');
    }
    assert.equal((await get(parent.key, `${ROUTE}/${a.id}`)).body.data.status, 'cancelled');
  });

  test('pending -> expired (final)', async () => {
    const a = await created(parent.key);
    assert.equal((await simulate(parent.key, a.id, 'expired')).body.data.status, 'expired');
    assertError(await simulate(parent.key, a.id, 'approved'), 409, 'simulation_not_allowed');
  });

  test('a live key: 409 simulation_not_allowed, nothing moves (test key only)', async () => {
    const a = await created(parentLive);
    assertError(await simulate(parentLive, a.id, 'approved'), 409, 'simulation_not_allowed');
    assert.equal((await get(parentLive, `${ROUTE}/${a.id}`)).body.data.status, 'pending');
  });

  test('a status other than approved, cancelled, expired: 422 validation_error; an unknown field: 400 invalid_json', async () => {
    const a = await created(parent.key);
    const paid = await simulate(parent.key, a.id, 'paid');
    assertError(paid, 422, 'validation_error');
    assert.equal(paid.body.error.param, 'status');
    assertError(
      await app.request('POST', `${ROUTE}/${a.id}/simulate`, {
        headers: { 'x-api-key': parent.key },
        json: { status: 'approved', extra: 1 },
      }),
      400,
      'invalid_json',
    );
    assert.equal((await get(parent.key, `${ROUTE}/${a.id}`)).body.data.status, 'pending');
  });

  test('ENABLE_SIMULATOR off: 422 simulator_disabled (simulate; a live key routed to the simulator)', async () => {
    const a = await created(parent.key);
    const config = app.gateway.ctx.config;
    (app.gateway.ctx as { config: typeof config }).config = { ...config, ENABLE_SIMULATOR: false };
    try {
      assertError(await simulate(parent.key, a.id, 'approved'), 422, 'simulator_disabled');
      // A live key whose Pix rule is the simulator's (SPEC 2.8, 7), nothing stored.
      assertError(await post(parentLive, body()), 422, 'simulator_disabled');
    } finally {
      (app.gateway.ctx as { config: typeof config }).config = config;
    }
    assert.equal((await get(parent.key, `${ROUTE}/${a.id}`)).body.data.status, 'pending');
  });
});

describe('refresh of a simulated authorization (SPEC 3.2, 4.11): only the 24-hour deadline', () => {
  test('before the deadline: 200 unchanged; from 24 hours on: expired (final)', async () => {
    const a = await created(parent.key);
    const same = await refresh(parent.key, a.id);
    assert.equal(same.status, 200, same.text);
    assert.equal(same.body.data.status, 'pending');
    frozen = new Date(new Date(a.approval_deadline).getTime() - 1);
    try {
      assert.equal((await refresh(parent.key, a.id)).body.data.status, 'pending');
      frozen = new Date(a.approval_deadline);
      assert.equal((await refresh(parent.key, a.id)).body.data.status, 'expired');
    } finally {
      frozen = null;
    }
    assertError(await simulate(parent.key, a.id, 'approved'), 409, 'simulation_not_allowed');
  });

  test('an approved one does not expire at the approval deadline', async () => {
    const a = await created(parent.key);
    await simulate(parent.key, a.id, 'approved');
    frozen = new Date(Date.now() + 2 * DAY);
    try {
      assert.equal((await refresh(parent.key, a.id)).body.data.status, 'approved');
    } finally {
      frozen = null;
    }
  });

  test('unknown without provider_reference: 409 reconciliation_required (SPEC 3.1, 7)', async () => {
    const id = await given(parent.tenantId, [
      {
        kind: 'uncertain',
        reason: 'timeout',
        providerReference: null,
        diagnostics: { provider_error_code: null, provider_error_message: null, provider_http_status: null },
      },
    ]);
    assertError(await refresh(parent.key, id), 409, 'reconciliation_required');
    assert.equal((await get(parent.key, `${ROUTE}/${id}`)).body.data.status, 'unknown');
  });
});

describe('DELETE (revoke; SPEC 3.2, 4.11, 7)', () => {
  test('pending -> 200 cancelled; again 200 unchanged; approved -> cancelled', async () => {
    const a = await created(parent.key);
    const res = await revoke(parent.key, a.id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'cancelled');
    const again = await revoke(parent.key, a.id);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body.data, res.body.data);
    const b = await created(parent.key);
    await simulate(parent.key, b.id, 'approved');
    assert.equal((await revoke(parent.key, b.id)).body.data.status, 'cancelled');
  });

  test('expired or failed: 409 automatic_not_available; processing or unknown: 409 reconciliation_required', async () => {
    const a = await created(parent.key);
    await simulate(parent.key, a.id, 'expired');
    assertError(await revoke(parent.key, a.id), 409, 'automatic_not_available');
    const none = { provider_error_code: null, provider_error_message: null, provider_http_status: null };
    const failed = await given(parent.tenantId, [
      { kind: 'refused', reason: 'provider_error', providerReference: null, diagnostics: none },
    ]);
    assertError(await revoke(parent.key, failed), 409, 'automatic_not_available');
    const processing = await given(parent.tenantId, []);
    assertError(await revoke(parent.key, processing), 409, 'reconciliation_required');
    const unknown = await given(parent.tenantId, [
      { kind: 'uncertain', reason: 'timeout', providerReference: null, diagnostics: none },
    ]);
    assertError(await revoke(parent.key, unknown), 409, 'reconciliation_required');
  });

  test('a revoke in flight: 502 provider_cancel_unconfirmed, unchanged; taken as interrupted after 2 minutes', async () => {
    const id = await given(parent.tenantId, [
      { kind: 'issued', providerReference: 'sim_x', copyPaste: 'SIMULADOR-TESTE-NAO-PAGAVEL-x' },
      { kind: 'revoke' },
    ]);
    assertError(await revoke(parent.key, id), 502, 'provider_cancel_unconfirmed');
    assert.equal((await get(parent.key, `${ROUTE}/${id}`)).body.data.status, 'pending');
    frozen = new Date(Date.now() + 3 * 60 * 1000);
    try {
      assert.equal((await revoke(parent.key, id)).body.data.status, 'cancelled');
    } finally {
      frozen = null;
    }
  });
});

describe('the expiry job (SPEC 3.2, 4.11: 24 hours to approve)', () => {
  test('expires pending authorizations past their deadline, and nothing before it', async () => {
    const a = await created(parent.key);
    const b = await created(parent.key);
    await simulate(parent.key, b.id, 'approved');
    await app.settle();
    const job = authorizationExpiryJob();
    const deps = jobDeps(app.db.db, app.gateway.ctx.store);
    const early = await job.run(deps, { now: new Date(new Date(a.approval_deadline).getTime() - 1000) });
    assert.ok(!early.expired.includes(a.id));
    assert.equal((await get(parent.key, `${ROUTE}/${a.id}`)).body.data.status, 'pending');
    const due = await job.run(deps, { now: new Date(a.approval_deadline) });
    assert.ok(due.expired.includes(a.id), JSON.stringify(due));
    assert.ok(!due.expired.includes(b.id));
    // A simulated one is never closed at a provider.
    assert.ok(!due.closed.some((c) => c.authorizationId === a.id));
    assert.equal((await get(parent.key, `${ROUTE}/${a.id}`)).body.data.status, 'expired');
    assert.equal((await get(parent.key, `${ROUTE}/${b.id}`)).body.data.status, 'approved');
    await app.settle();
    const again = await job.run(deps, { now: new Date(new Date(a.approval_deadline).getTime() + DAY) });
    assert.ok(!again.expired.includes(a.id));
  });

  test('a creation left processing by a crash: unknown once RECONCILE_AFTER_SECONDS passed with no answer (SPEC 3.2), never before; then refresh 409 reconciliation_required', async () => {
    const id = await given(parent.tenantId, []);
    await app.settle();
    assert.equal((await get(parent.key, `${ROUTE}/${id}`)).body.data.status, 'processing');
    const job = authorizationExpiryJob();
    const deps = jobDeps(app.db.db, app.gateway.ctx.store, { config: { RECONCILE_AFTER_SECONDS: 300 } });
    const reservedAt = Date.now();
    const early = await job.run(deps, { now: new Date(reservedAt + 3 * 60_000) });
    assert.ok(!early.interrupted.includes(id));
    assert.equal((await get(parent.key, `${ROUTE}/${id}`)).body.data.status, 'processing');
    await app.settle();
    const late = await job.run(deps, { now: new Date(reservedAt + 6 * 60_000) });
    assert.ok(late.interrupted.includes(id), JSON.stringify(late));
    await app.settle();
    const got = await get(parent.key, `${ROUTE}/${id}`);
    assert.equal(got.body.data.status, 'unknown');
    assertError(await refresh(parent.key, id), 409, 'reconciliation_required');
    await app.settle();
    const again = await job.run(deps, { now: new Date(reservedAt + DAY) });
    assert.ok(!again.interrupted.includes(id));
    const events = await app.gateway.ctx.store.read(authorizationStream(id));
    assert.deepEqual(
      events.map((e) => e.type),
      ['PixAutomaticAuthorization.Reserved', 'PixAutomaticAuthorization.Uncertain'],
    );
  });
});
