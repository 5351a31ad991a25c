import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';
import { subscriptionBody } from '../support/subscriptions.ts';

/**
 * Issue 26 "Done when" through HTTP: a test subscription on a test clock, the clock advanced twelve months,
 * every cycle listed with its charge (SPEC 2.5, 3.3, 4.10; issue 26 item 6). Expected calendars are written
 * out from SPEC 4.10 ("the due day repeats each cycle; in short months the last day applies and the original
 * day returns when possible"), never read back from the gateway.
 */

let app: TestApp;
let owner: SeededKey;

// biome-ignore lint/suspicious/noExplicitAny: response JSON, already validated against /openapi.json
type Json = any;

function post(path: string, json: unknown, idempotencyKey: string | null = randomUUID()) {
  return app.request('POST', path, {
    headers: {
      'x-api-key': owner.key,
      ...(idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey }),
    },
    json,
  });
}
const get = (path: string) => app.request('GET', path, { headers: { 'x-api-key': owner.key } });

async function clockAt(frozenTime: string): Promise<Json> {
  const res = await post('/v1/test_clocks', { frozen_time: frozenTime });
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

async function advance(clockId: string, frozenTime: string): Promise<Json> {
  const res = await post(`/v1/test_clocks/${clockId}/advance`, { frozen_time: frozenTime }, null);
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function subscribe(over: Record<string, unknown>): Promise<Json> {
  const res = await post('/v1/subscriptions', subscriptionBody(over));
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

async function cycles(subscriptionId: string): Promise<Json[]> {
  await app.settle();
  const res = await get(`/v1/subscriptions/${subscriptionId}/cycles?limit=100`);
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function subscriptionOf(id: string): Promise<Json> {
  const res = await get(`/v1/subscriptions/${id}`);
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

beforeAll(async () => {
  app = await startTestApp({ ENABLE_SIMULATOR: 'true' });
  owner = await seedTenantAndKey(app.gateway.ctx, { tenantName: 'Academia Boa Forma' });
});

afterAll(async () => {
  await app.close();
});

describe('a year on a test clock (issue 26 "Done when")', () => {
  test('monthly boleto due on the 31st: cycle 1 at creation, then one charge per month as the clock moves a year', async () => {
    // 2027-01-15 09:00 in Brasilia; the first due date is the 31st of the same month.
    const clock = await clockAt('2027-01-15T12:00:00Z');
    const sub = await subscribe({ first_due_date: '2027-01-31', test_clock_id: clock.id });
    assert.equal(sub.test_clock_id, clock.id);
    assert.equal(sub.cycle, 1);
    assert.equal((await cycles(sub.id)).length, 1);

    const after = await advance(clock.id, '2028-01-15T12:00:00Z');
    assert.equal(after.status, 'ready');
    assert.equal(after.frozen_time, '2028-01-15T12:00:00.000Z');

    // SPEC 4.10: the 31st, the month's last day in short months (2027 is not a leap year). Cycle 13
    // (2028-01-31) is not due by 2028-01-15 with advance_days 0, so twelve cycles exist.
    // The last day of each month of 2027, in order: the 31st where the month has one.
    const lastDays = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    const expected = lastDays.map((d, m) => `2027-${String(m + 1).padStart(2, '0')}-${d}`);
    const list = await cycles(sub.id);
    // Newest first (SPEC 4.10).
    assert.deepEqual(
      list.map((c: Json) => [c.cycle, c.due_date, c.status]),
      expected.map((due, i) => [i + 1, due, 'created']).reverse(),
    );
    for (const c of list) {
      assert.match(c.transaction_id, /^txn_/);
      assert.equal(c.transaction_status, 'pending');
      assert.equal(c.error_code, null);
      const tx = await get(`/v1/transactions/${c.transaction_id}`);
      assert.equal(tx.status, 200, tx.text);
      assert.equal(tx.body.data.reference, `sub_${sub.id}:${c.due_date}`);
      assert.equal(tx.body.data.method, 'boleto');
      assert.equal(tx.body.data.amount, 4990);
    }
    // Exactly one charge per cycle: every reference of the subscription, counted.
    await app.settle();
    const all = await get(`/v1/transactions?reference=sub_${sub.id}:2027-02-28&limit=100`);
    assert.equal(all.status, 200, all.text);
    assert.equal(all.body.data.length, 1);

    const now = await subscriptionOf(sub.id);
    assert.equal(now.status, 'active');
    assert.equal(now.cycle, 12);
    assert.equal(now.next_due_date, '2028-01-31');
    assert.equal(now.last_error, null);

    // The same time again runs the clock's subscriptions once more: nothing new is issued.
    await advance(clock.id, '2028-01-15T12:00:00Z');
    assert.equal((await cycles(sub.id)).length, 12);
  });

  test('paused on a clock: nothing is issued; resumed, the cycles that fell due meanwhile are skipped cycle_overdue', async () => {
    const clock = await clockAt('2027-01-15T12:00:00Z');
    const sub = await subscribe({ first_due_date: '2027-01-31', test_clock_id: clock.id });
    const paused = await app.request('PATCH', `/v1/subscriptions/${sub.id}`, {
      headers: { 'x-api-key': owner.key },
      json: { status: 'paused' },
    });
    assert.equal(paused.status, 200, paused.text);

    await advance(clock.id, '2027-04-15T12:00:00Z');
    assert.deepEqual(
      (await cycles(sub.id)).map((c: Json) => [c.cycle, c.status]),
      [[1, 'created']],
    );

    const resumed = await app.request('PATCH', `/v1/subscriptions/${sub.id}`, {
      headers: { 'x-api-key': owner.key },
      json: { status: 'active' },
    });
    assert.equal(resumed.status, 200, resumed.text);
    await advance(clock.id, '2027-04-15T12:01:00Z');
    const firstCharge = (await cycles(sub.id)).at(-1)?.transaction_id;
    assert.match(firstCharge, /^txn_/);

    // SPEC 3.3: cycles already overdue become skipped cycle_overdue, no retroactive charge; the next one
    // (2027-04-30) is not yet due.
    assert.deepEqual(
      (await cycles(sub.id)).map((c: Json) => [
        c.cycle,
        c.due_date,
        c.status,
        c.error_code,
        c.transaction_id,
      ]),
      [
        [3, '2027-03-31', 'skipped', 'cycle_overdue', null],
        [2, '2027-02-28', 'skipped', 'cycle_overdue', null],
        [1, '2027-01-31', 'created', null, firstCharge],
      ],
    );
    const s = await subscriptionOf(sub.id);
    assert.equal(s.status, 'active');
    assert.equal(s.next_due_date, '2027-04-30');

    // On the due day the cycle is issued again.
    await advance(clock.id, '2027-04-30T12:00:00Z');
    const last = (await cycles(sub.id))[0];
    assert.equal(last.cycle, 4);
    assert.equal(last.due_date, '2027-04-30');
    assert.equal(last.status, 'created');
    const tx = await get(`/v1/transactions/${last.transaction_id}`);
    assert.equal(tx.body.data.reference, `sub_${sub.id}:2027-04-30`);
  });
});
