import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { SCOPES } from '../../src/aggregates/access.ts';
import { testClock } from '../../src/aggregates/test-clock.ts';
import { issueApiKey } from '../../src/commands/api-keys/issue/handler.ts';
import { handleCommand } from '../../src/commands/command-handler.ts';
import { testClockStream } from '../../src/commands/test-clocks/record.ts';
import { assertError } from '../support/admin.ts';
import { commandDeps, type SeededKey, seedChildTenant, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

/**
 * Test clocks over HTTP (issue 26 item 6; docs/decisions.md "Subscriptions (issue 26)" → "Test clocks"):
 * create, replay and conflict, read, list, advance (forward only, at most 731 days, the same time again a
 * no-op), delete; test keys only, the key's own tenant only, the scopes, the Idempotency-Key rules.
 */

let app: TestApp;
let owner: SeededKey;
let child: SeededKey;
let outsider: SeededKey;
/** A production key of the owner's own tenant. */
let live: { key: string };
let boletoOnly: SeededKey;
let readOnly: SeededKey;
let writeOnly: SeededKey;

const START = '2027-03-31T15:00:00.000Z';
const DAY = 86_400_000;
const at = (ms: number) => new Date(Date.parse(START) + ms).toISOString();

function post(key: string, path: string, json: unknown, idempotencyKey: string | null = randomUUID()) {
  return app.request('POST', path, {
    headers: { 'x-api-key': key, ...(idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey }) },
    json,
  });
}
const get = (key: string, path: string) => app.request('GET', path, { headers: { 'x-api-key': key } });
const del = (key: string, path: string) => app.request('DELETE', path, { headers: { 'x-api-key': key } });
const advance = (key: string, id: string, frozenTime: string) =>
  post(key, `/v1/test_clocks/${id}/advance`, { frozen_time: frozenTime }, null);

// biome-ignore lint/suspicious/noExplicitAny: response JSON, already validated against /openapi.json
type Json = any;

async function created(
  key = owner.key,
  body: Record<string, unknown> = { frozen_time: START },
): Promise<Json> {
  const res = await post(key, '/v1/test_clocks', body);
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

beforeAll(async () => {
  app = await startTestApp();
  const ctx = app.gateway.ctx;
  owner = await seedTenantAndKey(ctx, { tenantName: 'Academia Boa Forma' });
  child = await seedChildTenant(ctx, owner.tenantId);
  outsider = await seedTenantAndKey(ctx);
  live = await issueApiKey(
    commandDeps(ctx),
    {
      tenantId: owner.tenantId,
      livemode: true,
      name: 'live key',
      scopes: SCOPES,
      accessProfile: 'standard',
      createdBy: 'system:test',
    },
    { actor: 'system:test', request_id: 'req_test' },
  );
  boletoOnly = await seedTenantAndKey(ctx, { scopes: ['boleto:write'] });
  readOnly = await seedTenantAndKey(ctx, { scopes: ['transactions:read'] });
  writeOnly = await seedTenantAndKey(ctx, { scopes: ['pix:write'] });
});

afterAll(async () => {
  await app.close();
});

describe('POST /v1/test_clocks', () => {
  test('201: a ready clock of the key tenant, in test mode, at the frozen time given (to the millisecond)', async () => {
    const res = await post(owner.key, '/v1/test_clocks', {
      frozen_time: '2027-03-31T12:00:00-03:00',
      name: '  Plano anual  ',
    });
    assert.equal(res.status, 201, res.text);
    const c = res.body.data;
    assert.match(c.id, /^clock_[a-z0-9]+$/);
    assert.equal(c.tenant_id, owner.tenantId);
    assert.equal(c.livemode, false);
    assert.equal(c.name, 'Plano anual');
    assert.equal(c.frozen_time, START);
    assert.equal(c.status, 'ready');
    assert.ok(!Number.isNaN(Date.parse(c.created_at)));
    assert.equal(res.headers.get('idempotency-replayed'), null);
  });

  test('name is optional (null)', async () => {
    const c = await created();
    assert.equal(c.name, null);
  });

  test('replay: 200 with Idempotency-Replayed and the same clock as it is now; another body 409 idempotency_conflict', async () => {
    const key = randomUUID();
    const first = await post(owner.key, '/v1/test_clocks', { frozen_time: START }, key);
    assert.equal(first.status, 201, first.text);
    const id = first.body.data.id;
    assert.equal((await advance(owner.key, id, at(DAY))).status, 200);
    const again = await post(owner.key, '/v1/test_clocks', { frozen_time: START }, key);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.equal(again.body.data.id, id);
    assert.equal(again.body.data.frozen_time, at(DAY));
    assertError(
      await post(owner.key, '/v1/test_clocks', { frozen_time: at(1) }, key),
      409,
      'idempotency_conflict',
    );
  });

  test('a replay after the clock was deleted is 404 not_found, never a second clock', async () => {
    const key = randomUUID();
    const first = await post(owner.key, '/v1/test_clocks', { frozen_time: START }, key);
    assert.equal(first.status, 201);
    assert.equal((await del(owner.key, `/v1/test_clocks/${first.body.data.id}`)).status, 204);
    assertError(await post(owner.key, '/v1/test_clocks', { frozen_time: START }, key), 404, 'not_found');
  });

  test('Idempotency-Key required and in the SPEC 8 pattern: 400 idempotency_key_required', async () => {
    assertError(
      await post(owner.key, '/v1/test_clocks', { frozen_time: START }, null),
      400,
      'idempotency_key_required',
    );
    assertError(
      await post(owner.key, '/v1/test_clocks', { frozen_time: START }, 'has space'),
      400,
      'idempotency_key_required',
    );
    assertError(
      await post(owner.key, '/v1/test_clocks', { frozen_time: START }, 'k'.repeat(129)),
      400,
      'idempotency_key_required',
    );
  });

  test('a live key: 403 forbidden (test clocks exist in test mode only)', async () => {
    assertError(await post(live.key, '/v1/test_clocks', { frozen_time: START }), 403, 'forbidden');
  });

  test('scopes: any one of pix:write, boleto:write, credit_card:write; transactions:read alone is 403 insufficient_scope', async () => {
    assertError(
      await post(readOnly.key, '/v1/test_clocks', { frozen_time: START }),
      403,
      'insufficient_scope',
    );
    assert.equal((await post(boletoOnly.key, '/v1/test_clocks', { frozen_time: START })).status, 201);
    assert.equal((await post(writeOnly.key, '/v1/test_clocks', { frozen_time: START })).status, 201);
  });

  test('bad bodies: 422 validation_error (missing, not an instant, no offset, out of range, bad name); 400 invalid_json (unknown field, a number for the time)', async () => {
    for (const body of [
      {},
      { frozen_time: '2027-03-31' },
      { frozen_time: '2027-03-31T12:00:00' },
      { frozen_time: '1999-12-31T23:59:59Z' },
      { frozen_time: '2100-01-01T00:00:00Z' },
      { frozen_time: START, name: '' },
      { frozen_time: START, name: 'x'.repeat(101) },
    ]) {
      const res = await post(owner.key, '/v1/test_clocks', body);
      assertError(res, 422, 'validation_error');
    }
    assertError(
      await post(owner.key, '/v1/test_clocks', { frozen_time: START, tenant_id: owner.tenantId }),
      400,
      'invalid_json',
    );
    assertError(
      await post(owner.key, '/v1/test_clocks', { frozen_time: 1_800_000_000_000 }),
      400,
      'invalid_json',
    );
  });

  test('no key: 401 unauthorized', async () => {
    const res = await app.request('POST', '/v1/test_clocks', {
      headers: { 'idempotency-key': randomUUID() },
      json: { frozen_time: START },
    });
    assertError(res, 401, 'unauthorized');
  });
});

describe('GET /v1/test_clocks/{id} and GET /v1/test_clocks', () => {
  test('the owner reads its clock; another tenant, the parent or child, and a live key get 404 not_found', async () => {
    const c = await created();
    const res = await get(owner.key, `/v1/test_clocks/${c.id}`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data, c);
    const childClock = await created(child.key);
    assertError(await get(owner.key, `/v1/test_clocks/${childClock.id}`), 404, 'not_found');
    assertError(await get(child.key, `/v1/test_clocks/${c.id}`), 404, 'not_found');
    assertError(await get(outsider.key, `/v1/test_clocks/${c.id}`), 404, 'not_found');
    assertError(await get(live.key, `/v1/test_clocks/${c.id}`), 404, 'not_found');
    assertError(await get(owner.key, '/v1/test_clocks/clock_doesnotexist'), 404, 'not_found');
    assertError(await get(owner.key, '/v1/test_clocks/txn_notaclock'), 404, 'not_found');
  });

  test('reads need transactions:read: 403 insufficient_scope', async () => {
    const c = await created(writeOnly.key);
    assertError(await get(writeOnly.key, `/v1/test_clocks/${c.id}`), 403, 'insufficient_scope');
    assertError(await get(writeOnly.key, '/v1/test_clocks'), 403, 'insufficient_scope');
  });

  test('the list: own tenant only, newest first, paged; a live key has an empty page', async () => {
    const mine = await seedTenantAndKey(app.gateway.ctx);
    const a = await created(mine.key, { frozen_time: START, name: 'a' });
    const b = await created(mine.key, { frozen_time: START, name: 'b' });
    const c = await created(mine.key, { frozen_time: START, name: 'c' });
    await created(outsider.key);
    await app.settle();
    const all = await get(mine.key, '/v1/test_clocks');
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(
      all.body.data.map((x: { id: string }) => x.id),
      [c.id, b.id, a.id],
    );
    assert.deepEqual(all.body.data[0], c);
    assert.deepEqual(all.body.meta, { limit: 50, offset: 0, count: 3 });
    const second = await get(mine.key, '/v1/test_clocks?limit=1&offset=1');
    assert.deepEqual(
      second.body.data.map((x: { id: string }) => x.id),
      [b.id],
    );
    assert.deepEqual(second.body.meta, { limit: 1, offset: 1, count: 1 });
    const none = await get(live.key, '/v1/test_clocks');
    assert.equal(none.status, 200, none.text);
    assert.deepEqual(none.body, { data: [], meta: { limit: 50, offset: 0, count: 0 } });
    assertError(await get(mine.key, '/v1/test_clocks?limit=0'), 422, 'validation_error');
  });
});

describe('POST /v1/test_clocks/{id}/advance', () => {
  test('moves the time forward: 200 with the new frozen_time, ready; read and listed so', async () => {
    const c = await created();
    const res = await advance(owner.key, c.id, '2027-04-30T12:00:00-03:00');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.frozen_time, at(30 * DAY));
    assert.equal(res.body.data.status, 'ready');
    assert.equal(res.body.data.created_at, c.created_at);
    const read = await get(owner.key, `/v1/test_clocks/${c.id}`);
    assert.deepEqual(read.body.data, res.body.data);
    await app.settle();
    const listed = (await get(owner.key, '/v1/test_clocks?limit=100')).body.data.find(
      (x: { id: string }) => x.id === c.id,
    );
    assert.equal(listed.frozen_time, at(30 * DAY));
    assert.equal(listed.status, 'ready');
  });

  test('the same time again is a no-op (200, unchanged: a safe retry without an Idempotency-Key)', async () => {
    const c = await created();
    const first = await advance(owner.key, c.id, at(DAY));
    assert.equal(first.status, 200);
    const again = await advance(owner.key, c.id, at(DAY));
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body.data, first.body.data);
  });

  test('backwards is 422 validation_error (param frozen_time); the clock keeps its time', async () => {
    const c = await created();
    const res = await advance(owner.key, c.id, at(-1));
    assertError(res, 422, 'validation_error');
    assert.equal(res.body.error.param, 'frozen_time');
    assert.equal((await get(owner.key, `/v1/test_clocks/${c.id}`)).body.data.frozen_time, START);
  });

  test('at most 731 days per advance: exactly 731 passes, one millisecond more is 422', async () => {
    const c = await created();
    assertError(await advance(owner.key, c.id, at(731 * DAY + 1)), 422, 'validation_error');
    const res = await advance(owner.key, c.id, at(731 * DAY));
    assert.equal(res.status, 200, res.text);
    // Years of cycles: advance again from there.
    assert.equal((await advance(owner.key, c.id, at(2 * 731 * DAY))).status, 200);
  });

  test('bad body: 422 validation_error; unknown field 400 invalid_json', async () => {
    const c = await created();
    assertError(await post(owner.key, `/v1/test_clocks/${c.id}/advance`, {}, null), 422, 'validation_error');
    assertError(
      await post(owner.key, `/v1/test_clocks/${c.id}/advance`, { frozen_time: 'tomorrow' }, null),
      422,
      'validation_error',
    );
    assertError(
      await post(owner.key, `/v1/test_clocks/${c.id}/advance`, { frozen_time: at(DAY), by: 1 }, null),
      400,
      'invalid_json',
    );
  });

  test("another tenant's clock, a descendant's, a live key, a deleted clock: 404 not_found", async () => {
    const c = await created();
    const childClock = await created(child.key);
    assertError(await advance(outsider.key, c.id, at(DAY)), 404, 'not_found');
    assertError(await advance(child.key, c.id, at(DAY)), 404, 'not_found');
    assertError(await advance(owner.key, childClock.id, at(DAY)), 404, 'not_found');
    assertError(await advance(live.key, c.id, at(DAY)), 404, 'not_found');
    assert.equal((await del(owner.key, `/v1/test_clocks/${c.id}`)).status, 204);
    assertError(await advance(owner.key, c.id, at(DAY)), 404, 'not_found');
    assert.equal((await get(owner.key, `/v1/test_clocks/${c.id}`)).body.error.code, 'not_found');
  });

  test('a clock left advancing (a crash between its appends): the same time finishes it (ready), another is 409 conflict', async () => {
    const c = await created();
    await handleCommand(
      commandDeps(app.gateway.ctx),
      testClock,
      testClockStream(c.id),
      { kind: 'advance', frozenTime: at(DAY) },
      { metadata: { actor: 'system:test', request_id: 'req_test' } },
    );
    const stuck = await get(owner.key, `/v1/test_clocks/${c.id}`);
    assert.equal(stuck.body.data.status, 'advancing');
    assert.equal(stuck.body.data.frozen_time, at(DAY));
    assertError(await advance(owner.key, c.id, at(2 * DAY)), 409, 'conflict');
    const finished = await advance(owner.key, c.id, at(DAY));
    assert.equal(finished.status, 200, finished.text);
    assert.equal(finished.body.data.status, 'ready');
    assert.equal(finished.body.data.frozen_time, at(DAY));
    assert.equal((await advance(owner.key, c.id, at(2 * DAY))).status, 200);
  });

  test('a developer key (SPEC 5.4: it uses subscriptions) creates and advances clocks', async () => {
    const dev = await seedTenantAndKey(app.gateway.ctx, { accessProfile: 'developer' });
    const c = await created(dev.key);
    assert.equal((await advance(dev.key, c.id, at(DAY))).status, 200);
    assert.equal((await get(dev.key, `/v1/test_clocks/${c.id}`)).status, 200);
  });

  test('scopes: a subscription write scope; transactions:read alone is 403 insufficient_scope', async () => {
    const c = await created(writeOnly.key);
    assert.equal((await advance(writeOnly.key, c.id, at(DAY))).status, 200);
    const r = await created(boletoOnly.key);
    assert.equal((await advance(boletoOnly.key, r.id, at(DAY))).status, 200);
    assertError(await advance(readOnly.key, c.id, at(2 * DAY)), 403, 'insufficient_scope');
  });
});

describe('DELETE /v1/test_clocks/{id}', () => {
  test('204, then 404 on every read and write, and gone from the list; a second delete is 404', async () => {
    const c = await created();
    const res = await del(owner.key, `/v1/test_clocks/${c.id}`);
    assert.equal(res.status, 204, res.text);
    assertError(await get(owner.key, `/v1/test_clocks/${c.id}`), 404, 'not_found');
    assertError(await del(owner.key, `/v1/test_clocks/${c.id}`), 404, 'not_found');
    await app.settle();
    const list = (await get(owner.key, '/v1/test_clocks?limit=100')).body.data;
    assert.ok(!list.some((x: { id: string }) => x.id === c.id));
  });

  test("another tenant's, a descendant's, a live key: 404 not_found; read-only key: 403 insufficient_scope", async () => {
    const c = await created();
    assertError(await del(outsider.key, `/v1/test_clocks/${c.id}`), 404, 'not_found');
    assertError(await del(child.key, `/v1/test_clocks/${c.id}`), 404, 'not_found');
    assertError(await del(live.key, `/v1/test_clocks/${c.id}`), 404, 'not_found');
    assertError(await del(readOnly.key, `/v1/test_clocks/${c.id}`), 403, 'insufficient_scope');
    assert.equal((await get(owner.key, `/v1/test_clocks/${c.id}`)).status, 200);
  });
});
