import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { addDays, saoPauloDate } from '../../src/aggregates/subscription-calendar.ts';
import { assertError } from '../support/admin.ts';
import { pixBody } from '../support/charges.ts';
import { type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';
import { seedAuthorization } from '../support/pix-automatic.ts';

/**
 * Pix Automatic subscriptions over HTTP on the simulator (issue 27 item 4; SPEC 2.4, 2.5, 3.3, 4.10, 4.11):
 * the contract checked at creation, one authorization per subscription, the first debit scheduled from 10
 * days before the first due date (at once when nearer) and retried every 15 minutes until the payer
 * approves, later debits `advance_days` before their due dates, and the cycles an ended authorization, a
 * closed window or a debit already scheduled leave skipped. The scheduler is driven through test clocks
 * (POST /v1/test_clocks/{id}/advance runs the scheduler's own code through the skipped time); the gateway's
 * own clock is pinned where a test needs to know "now" (the bring-forward after an approval). Expected
 * values are written out from SPEC, never read back from the gateway. The provider emulator with a
 * production key is test/http/subscriptions-pix-automatic-external.test.ts.
 */

const AUTHORIZATIONS = '/v1/pix-automatic/authorizations';
const MINUTE = 60_000;
let app: TestApp;
let owner: SeededKey;
let outsider: SeededKey;
/** The instant the gateway's clock reads; null: the real time. */
let frozen: Date | null = null;

// biome-ignore lint/suspicious/noExplicitAny: response JSON, already validated against /openapi.json
type Json = any;

/** Today in Brasilia (SPEC 4.10 counts due dates in America/Sao_Paulo), from the real clock. */
const dueIn = (days: number) => addDays(saoPauloDate(new Date()), days);
/** Brasilia time (UTC-3) on a business date, as a Date. */
const br = (date: string, time: string) => new Date(`${date}T${time}-03:00`);
/** A due date at least `days` ahead on a day of month every month has (so the calendar is plain). */
function plainDueIn(days: number): string {
  for (let n = days; ; n++) {
    const date = dueIn(n);
    if (Number(date.slice(8)) <= 28) return date;
  }
}

function headers(key: string, idempotencyKey: string | null) {
  return { 'x-api-key': key, ...(idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey }) };
}
const post = (key: string, path: string, json: unknown, idempotencyKey: string | null = randomUUID()) =>
  app.request('POST', path, { headers: headers(key, idempotencyKey), json });
const get = (path: string, key = owner.key) => app.request('GET', path, { headers: { 'x-api-key': key } });
const patch = (id: string, json: unknown) =>
  app.request('PATCH', `/v1/subscriptions/${id}`, { headers: { 'x-api-key': owner.key }, json });

/** The authorization's contract, as SPEC 4.11 creates it (the complete payer of SPEC 4.10). */
function contract(firstDueDate: string, over: Record<string, unknown> = {}) {
  return {
    name: 'Academia Forma',
    description: 'Mensalidade',
    amount: 4990,
    first_due_date: firstDueDate,
    interval_months: 1,
    customer: pixBody().customer,
    ...over,
  };
}

/** A test authorization created over HTTP (SPEC 4.11: 201 pending), approved by simulate unless `pending`. */
async function authorization(
  firstDueDate: string,
  status: 'pending' | 'approved' = 'approved',
  over: Record<string, unknown> = {},
): Promise<string> {
  const res = await post(owner.key, AUTHORIZATIONS, contract(firstDueDate, over));
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.data.status, 'pending');
  const id: string = res.body.data.id;
  if (status === 'approved') await simulate(id, 'approved');
  return id;
}

async function simulate(id: string, status: 'approved' | 'cancelled' | 'expired'): Promise<void> {
  const res = await post(owner.key, `${AUTHORIZATIONS}/${id}/simulate`, { status }, null);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.status, status);
}

/** The SPEC 4.10 body of a Pix Automatic subscription repeating the authorization's contract. */
function subscriptionBody(authorizationId: string, firstDueDate: string, over: Record<string, unknown> = {}) {
  return {
    ...contract(firstDueDate),
    method: 'pix_automatic',
    advance_days: 3,
    authorization_id: authorizationId,
    ...over,
  };
}

async function subscribe(body: Record<string, unknown>, key = randomUUID()): Promise<Json> {
  const res = await post(owner.key, '/v1/subscriptions', body, key);
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

async function clockAt(frozenTime: Date): Promise<string> {
  const res = await post(owner.key, '/v1/test_clocks', { frozen_time: frozenTime.toISOString() });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id;
}

/** Moves the clock to `to`: the scheduler runs its subscriptions through the skipped time (issue 26 item 6). */
async function advance(clockId: string, to: Date): Promise<void> {
  await app.settle();
  const res = await post(
    owner.key,
    `/v1/test_clocks/${clockId}/advance`,
    { frozen_time: to.toISOString() },
    null,
  );
  assert.equal(res.status, 200, res.text);
  await app.settle();
}

async function subscriptionOf(id: string): Promise<Json> {
  await app.settle();
  const res = await get(`/v1/subscriptions/${id}`);
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

/** The cycles, oldest first, as [cycle, due_date, status, error_code]. */
async function cycles(id: string): Promise<Json[]> {
  await app.settle();
  const res = await get(`/v1/subscriptions/${id}/cycles?limit=100`);
  assert.equal(res.status, 200, res.text);
  return [...res.body.data].reverse();
}
const summary = (list: Json[]) => list.map((c: Json) => [c.cycle, c.due_date, c.status, c.error_code]);

async function subscriptionIds(): Promise<string[]> {
  await app.settle();
  const res = await get('/v1/subscriptions?limit=100');
  assert.equal(res.status, 200, res.text);
  return res.body.data.map((s: Json) => s.id).sort();
}

/** The real time, whole seconds (a clock's frozen time and the gateway's pinned one start here). */
const realNow = () => new Date(Math.floor(Date.now() / 1000) * 1000);

beforeAll(async () => {
  // Many requests of one key within a minute: the rate limit (SPEC 8) is not what these tests are about.
  app = await startTestApp({ ENABLE_SIMULATOR: 'true', RATE_LIMIT_PER_MINUTE: '100000' });
  app.gateway.ctx.now = () => frozen ?? new Date();
  owner = await seedTenantAndKey(app.gateway.ctx, { tenantName: 'Academia Forma', livemode: false });
  outsider = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
});

afterAll(async () => {
  await app.close();
});

describe('creation (SPEC 4.10, 4.11, 7)', () => {
  test('SPEC 4.10: another tenant’s, another mode’s or an unknown authorization is 422 validation_error on authorization_id; nothing stored', async () => {
    const due = dueIn(5);
    const foreign = await seedAuthorization(app.gateway.ctx, {
      tenantId: outsider.tenantId,
      livemode: false,
      firstDueDate: due,
    });
    const live = await seedAuthorization(app.gateway.ctx, {
      tenantId: owner.tenantId,
      livemode: true,
      firstDueDate: due,
      providerId: null,
    });
    const before = await subscriptionIds();
    for (const id of [foreign, live, 'pxa_00000000000000000000000000']) {
      const res = await post(owner.key, '/v1/subscriptions', subscriptionBody(id, due));
      assertError(res, 422, 'validation_error');
      assert.equal(res.body.error.param, 'authorization_id', res.text);
    }
    assert.deepEqual(await subscriptionIds(), before);
  });

  test('SPEC 4.11: a subscription that does not repeat amount, payer document, first due date or interval is 422 automatic_contract_mismatch; nothing stored', async () => {
    const due = plainDueIn(5);
    const auth = await authorization(due, 'pending');
    const before = await subscriptionIds();
    const differing: Record<string, unknown>[] = [
      { amount: 4991 },
      { customer: { ...(pixBody().customer as Record<string, unknown>), document: '52998224725' } },
      { first_due_date: addDays(due, 1) },
      { interval_months: 3 },
    ];
    for (const over of differing) {
      const res = await post(owner.key, '/v1/subscriptions', subscriptionBody(auth, due, over));
      assertError(res, 422, 'automatic_contract_mismatch');
    }
    assert.deepEqual(await subscriptionIds(), before);
    // The same contract is accepted (the authorization may still be pending, SPEC 4.11).
    await subscribe(subscriptionBody(auth, due));
  });

  test('SPEC 4.11: the payer document is compared as the debit compares it (trimmed, upper-cased): another alphanumeric CNPJ is a mismatch; the same in lower case is the contract, and its debit is scheduled', async () => {
    const due = dueIn(5);
    const payer = (document: string) => ({ ...(pixBody().customer as Record<string, unknown>), document });
    const auth = await authorization(due, 'approved', { customer: payer('12ABC34501DE35') });
    const before = await subscriptionIds();
    const other = await post(
      owner.key,
      '/v1/subscriptions',
      subscriptionBody(auth, due, { customer: payer('12XYZ34501DE35') }),
    );
    assertError(other, 422, 'automatic_contract_mismatch');
    assert.deepEqual(await subscriptionIds(), before);
    const sub = await subscribe(subscriptionBody(auth, due, { customer: payer(' 12abc34501de35 ') }));
    assert.equal(sub.last_error, null);
    assert.deepEqual(summary(await cycles(sub.id)), [[1, due, 'created', null]]);
  });

  test('SPEC 3.2, 4.11: an ended authorization (cancelled, expired) is 409 automatic_not_available; nothing stored', async () => {
    const due = dueIn(5);
    const cancelled = await authorization(due, 'approved');
    await simulate(cancelled, 'cancelled');
    const expired = await authorization(due, 'pending');
    await simulate(expired, 'expired');
    const before = await subscriptionIds();
    for (const id of [cancelled, expired]) {
      const res = await post(owner.key, '/v1/subscriptions', subscriptionBody(id, due));
      assertError(res, 409, 'automatic_not_available');
    }
    assert.deepEqual(await subscriptionIds(), before);
  });

  test('SPEC 4.10: one authorization serves one subscription — another key is 409 automatic_authorization_in_use; the same key replays 200 with the same subscription', async () => {
    const due = dueIn(5);
    const auth = await authorization(due);
    const key = randomUUID();
    const first = await subscribe(subscriptionBody(auth, due), key);
    assert.equal(first.authorization_id, auth);
    assert.equal(first.method, 'pix_automatic');

    const replay = await post(owner.key, '/v1/subscriptions', subscriptionBody(auth, due), key);
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.headers.get('idempotency-replayed'), 'true');
    assert.equal(replay.body.data.id, first.id);

    const before = await subscriptionIds();
    const second = await post(owner.key, '/v1/subscriptions', subscriptionBody(auth, due));
    assertError(second, 409, 'automatic_authorization_in_use');
    assert.deepEqual(await subscriptionIds(), before);
    // SPEC 4.10 replay: never another first charge.
    assert.equal((await cycles(first.id)).length, 1);
  });

  test('SPEC 4.10: six creations on one authorization at once under different keys — one 201, five 409 automatic_authorization_in_use', async () => {
    const due = dueIn(5);
    const auth = await authorization(due);
    const before = await subscriptionIds();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => post(owner.key, '/v1/subscriptions', subscriptionBody(auth, due))),
    );
    assert.deepEqual(
      answers.map((a) => a.status).sort(),
      [201, 409, 409, 409, 409, 409],
      answers.map((a) => a.text).join('\n'),
    );
    for (const a of answers.filter((r) => r.status === 409)) {
      assert.equal(a.body.error.code, 'automatic_authorization_in_use', a.text);
    }
    const winner = answers.find((a) => a.status === 201)?.body.data.id;
    assert.deepEqual(await subscriptionIds(), [...before, winner].sort());
  });

  test('SPEC 4.10: two creations at once under one Idempotency-Key naming different authorizations — one subscription; the other authorization stays free for a later subscription', async () => {
    const due = dueIn(5);
    const [a, b] = [await authorization(due), await authorization(due)];
    const key = randomUUID();
    const answers = await Promise.all([
      post(owner.key, '/v1/subscriptions', subscriptionBody(a, due), key),
      post(owner.key, '/v1/subscriptions', subscriptionBody(b, due), key),
    ]);
    assert.deepEqual(answers.map((r) => r.status).sort(), [201, 409], answers.map((r) => r.text).join('\n'));
    const lost = answers.find((r) => r.status === 409);
    assert.equal(lost?.body.error.code, 'idempotency_conflict', lost?.text);
    const won = answers.find((r) => r.status === 201)?.body.data;
    const free = won.authorization_id === a ? b : a;
    const later = await subscribe(subscriptionBody(free, due));
    assert.equal(later.authorization_id, free);
  });

  test('SPEC 4.10: a claim whose Idempotency-Key went to another subscription is abandoned and taken over; a claim still in flight is not', async () => {
    const due = dueIn(5);
    const [taken, left, inFlight] = [
      await authorization(due),
      await authorization(due),
      await authorization(due),
    ];
    const key = randomUUID();
    await subscribe(subscriptionBody(taken, due), key);
    const ctx = app.gateway.ctx;
    // Given what the race above can leave: claims under a key whose subscription will never exist.
    const leftover = (authorizationId: string, idempotencyKey: string) => ({
      ...ctx.events.encode({
        type: 'Subscription.AuthorizationClaimed',
        data: {
          authorization_id: authorizationId,
          subscription_id: `sub_${randomUUID().replaceAll('-', '')}`,
          tenant_id: owner.tenantId,
          livemode: false,
          idempotency_key: idempotencyKey,
        },
      }),
      id: randomUUID(),
      metadata: { actor: `api_key:${owner.keyId}`, tenant_id: owner.tenantId, livemode: false },
    });
    await ctx.store.append(`pix_automatic_authorization_use-${left}`, [leftover(left, key)], 'no_stream');
    await ctx.store.append(
      `pix_automatic_authorization_use-${inFlight}`,
      [leftover(inFlight, randomUUID())],
      'no_stream',
    );

    const taken2 = await subscribe(subscriptionBody(left, due));
    assert.equal(taken2.authorization_id, left);
    const before = await subscriptionIds();
    assertError(
      await post(owner.key, '/v1/subscriptions', subscriptionBody(inFlight, due)),
      409,
      'automatic_authorization_in_use',
    );
    assertError(
      await post(owner.key, '/v1/subscriptions', subscriptionBody(left, due)),
      409,
      'automatic_authorization_in_use',
    );
    assert.deepEqual(await subscriptionIds(), before);
  });
});

describe('the first debit (SPEC 2.4, 2.5, 4.10, 4.11)', () => {
  test('SPEC 4.11, 8: the test clock moved past the due dates — each debit is polled in the clock’s time and read paid by Pix from its due date; transaction.updated-worthy events, one Paid each', async () => {
    const t0 = realNow();
    const due = dueIn(5);
    const auth = await authorization(due);
    const clock = await clockAt(t0);
    const sub = await subscribe(subscriptionBody(auth, due, { test_clock_id: clock }));
    const second = plusMonthsAny(due, 1);
    // Into the second cycle's due date: its debit was scheduled advance_days (3) before it, then polled.
    await advance(clock, br(second, '12:00'));
    const list = await cycles(sub.id);
    assert.deepEqual(summary(list), [
      [1, due, 'created', null],
      [2, second, 'created', null],
    ]);
    for (const [i, c] of list.entries()) {
      assert.equal(c.transaction_status, 'paid', JSON.stringify(c));
      const tx = await get(`/v1/transactions/${c.transaction_id}`);
      assert.equal(tx.body.data.status, 'paid');
      assert.equal(tx.body.data.paid_with, 'pix');
      // The first poll of a debit is at the start of its due date (America/Sao_Paulo): paid there.
      assert.equal(tx.body.data.paid_at, br(i === 0 ? due : second, '00:00').toISOString());
      const events = await app.gateway.ctx.store.read(`transaction-${c.transaction_id}`);
      assert.equal(events.filter((e) => e.type === 'Transaction.Paid').length, 1);
    }
    // Moving on polls nothing again.
    await advance(clock, br(second, '18:00'));
    for (const c of await cycles(sub.id)) {
      const events = await app.gateway.ctx.store.read(`transaction-${c.transaction_id}`);
      assert.equal(events.filter((e) => e.type === 'Transaction.Paid').length, 1);
    }
  });

  test('SPEC 4.11: created while pending — automatic_not_approved, retried every 15 minutes; approved by simulate, the next attempt within a minute schedules the debit', async () => {
    const t0 = realNow();
    frozen = t0;
    try {
      const due = dueIn(5);
      const auth = await authorization(due, 'pending');
      const clock = await clockAt(t0);
      const sub = await subscribe(subscriptionBody(auth, due, { test_clock_id: clock }));
      // SPEC 3.3 / 4.11: created (201) though no debit could be scheduled yet; SPEC 2.4 the reason.
      assert.equal(sub.status, 'active');
      assert.equal(sub.cycle, 1);
      assert.equal(sub.last_error, 'automatic_not_approved');
      assert.equal(new Date(sub.next_attempt_at).getTime(), t0.getTime() + 15 * MINUTE);
      assert.deepEqual(summary(await cycles(sub.id)), [[1, due, 'pending', null]]);

      // SPEC 4.10: retried every 15 minutes, still not approved.
      await advance(clock, new Date(t0.getTime() + 15 * MINUTE));
      const retried = await subscriptionOf(sub.id);
      assert.equal(retried.last_error, 'automatic_not_approved');
      assert.equal(new Date(retried.next_attempt_at).getTime(), t0.getTime() + 30 * MINUTE);
      assert.deepEqual(summary(await cycles(sub.id)), [[1, due, 'pending', null]]);

      // SPEC 4.11: the approval brings the next attempt forward to the next minute.
      const approvedAt = new Date(t0.getTime() + 20 * MINUTE);
      frozen = approvedAt;
      await app.settle();
      await simulate(auth, 'approved');
      const waiting = await subscriptionOf(sub.id);
      assert.equal(new Date(waiting.next_attempt_at).getTime(), approvedAt.getTime() + MINUTE);

      await advance(clock, new Date(approvedAt.getTime() + MINUTE));
      const [cycle] = await cycles(sub.id);
      assert.deepEqual(summary([cycle]), [[1, due, 'created', null]]);
      assert.match(cycle.transaction_id, /^txn_/);
      assert.equal(cycle.transaction_status, 'pending');
      const after = await subscriptionOf(sub.id);
      assert.equal(after.last_error, null);
      assert.equal(after.next_due_date, plusMonthsAny(due, 1));

      // SPEC 4.11: the debit is a Pix transaction of the authorization, scheduled for the cycle's due date.
      const tx = await get(`/v1/transactions/${cycle.transaction_id}`);
      assert.equal(tx.status, 200, tx.text);
      const t = tx.body.data;
      assert.equal(t.method, 'pix');
      assert.equal(t.pix_automatic_authorization_id, auth);
      assert.equal(t.scheduled_due_date, due);
      assert.equal(t.status, 'pending');
      assert.equal(t.expires_at, null);
      assert.equal(t.amount, 4990);
      assert.equal(t.reference, `sub_${sub.id}:${due}`);
    } finally {
      frozen = null;
    }
  });

  test('SPEC 4.11: a first due date more than 10 days ahead — nothing before due − 10 days, the debit then; later debits advance_days before their due dates', async () => {
    const due = plainDueIn(16);
    const auth = await authorization(due);
    const clock = await clockAt(realNow());
    const sub = await subscribe(subscriptionBody(auth, due, { test_clock_id: clock, advance_days: 3 }));
    assert.equal(sub.last_error, null);
    assert.deepEqual(await cycles(sub.id), []);

    const firstFrom = addDays(due, -10);
    await advance(clock, br(addDays(firstFrom, -1), '23:59:00'));
    assert.deepEqual(await cycles(sub.id), []);
    await advance(clock, br(firstFrom, '00:01:00'));
    assert.deepEqual(summary(await cycles(sub.id)), [[1, due, 'created', null]]);

    // SPEC 4.10: the next due date is a month later, issued advance_days (3) before it.
    const second = plusMonthsAny(due, 1);
    const secondFrom = addDays(second, -3);
    await advance(clock, br(addDays(secondFrom, -1), '23:59:00'));
    assert.equal((await cycles(sub.id)).length, 1);
    await advance(clock, br(secondFrom, '00:01:00'));
    const list = await cycles(sub.id);
    assert.deepEqual(summary(list), [
      [1, due, 'created', null],
      [2, second, 'created', null],
    ]);
    const tx = await get(`/v1/transactions/${list[1].transaction_id}`);
    assert.equal(tx.body.data.scheduled_due_date, second);
    assert.equal(tx.body.data.reference, `sub_${sub.id}:${second}`);
  });
});

describe('the cost center a debit inherits (SPEC 4.10)', () => {
  test('a subscription’s center deactivated after creation goes on classifying its debits (continuity kept)', async () => {
    const center = await post(owner.key, '/v1/cost-centers', { name: `Centro ${randomUUID()}` }, null);
    assert.equal(center.status, 201, center.text);
    const due = plainDueIn(16);
    const auth = await authorization(due);
    const clock = await clockAt(realNow());
    const sub = await subscribe(
      subscriptionBody(auth, due, { test_clock_id: clock, cost_center_id: center.body.data.id }),
    );
    const off = await app.request('PATCH', `/v1/cost-centers/${center.body.data.id}`, {
      headers: { 'x-api-key': owner.key },
      json: { active: false },
    });
    assert.equal(off.status, 200, off.text);
    await advance(clock, br(addDays(due, -10), '00:01:00'));
    const list = await cycles(sub.id);
    assert.deepEqual(summary(list), [[1, due, 'created', null]]);
    assert.equal((await subscriptionOf(sub.id)).last_error, null);
    const tx = await get(`/v1/transactions/${list[0].transaction_id}`);
    assert.equal(tx.body.data.cost_center_id, center.body.data.id);
  });
});

describe('cycles that cannot be debited (SPEC 2.5, 3.4)', () => {
  test('SPEC 2.5: the authorization cancelled before a cycle — skipped automatic_authorization_cancelled', async () => {
    const due = plainDueIn(16);
    const auth = await authorization(due);
    const clock = await clockAt(realNow());
    const sub = await subscribe(subscriptionBody(auth, due, { test_clock_id: clock }));
    await simulate(auth, 'cancelled');
    await advance(clock, br(addDays(due, -10), '00:01:00'));
    const [cycle] = await cycles(sub.id);
    assert.deepEqual(summary([cycle]), [[1, due, 'skipped', 'automatic_authorization_cancelled']]);
    assert.equal(cycle.transaction_id, null);
  });

  test('SPEC 2.5: the authorization expired before a cycle — skipped automatic_authorization_expired', async () => {
    const due = plainDueIn(16);
    const auth = await authorization(due, 'pending');
    const clock = await clockAt(realNow());
    const sub = await subscribe(subscriptionBody(auth, due, { test_clock_id: clock }));
    await simulate(auth, 'expired');
    await advance(clock, br(addDays(due, -10), '00:01:00'));
    const [cycle] = await cycles(sub.id);
    assert.deepEqual(summary([cycle]), [[1, due, 'skipped', 'automatic_authorization_expired']]);
    assert.equal(cycle.transaction_id, null);
  });

  test('SPEC 2.5, 4.11: never approved while at least 2 days remained — skipped automatic_schedule_window', async () => {
    const due = dueIn(3);
    const auth = await authorization(due, 'pending');
    const clock = await clockAt(realNow());
    const sub = await subscribe(subscriptionBody(auth, due, { test_clock_id: clock }));
    assert.equal(sub.last_error, 'automatic_not_approved');
    // The last day with 2 days remaining: still pending, still retried.
    await advance(clock, br(addDays(due, -2), '23:50:00'));
    assert.deepEqual(summary(await cycles(sub.id)), [[1, due, 'pending', null]]);
    await advance(clock, br(addDays(due, -1), '00:20:00'));
    const [cycle] = await cycles(sub.id);
    assert.deepEqual(summary([cycle]), [[1, due, 'skipped', 'automatic_schedule_window']]);
    assert.equal(cycle.transaction_id, null);
    const after = await subscriptionOf(sub.id);
    assert.equal(after.status, 'active');
    assert.equal(after.next_due_date, plusMonthsAny(due, 1));
  });

  test('SPEC 2.5, 4.11: a debit already scheduled by POST /v1/pix-automatic/charges for the due date — the cycle skipped automatic_charge_exists', async () => {
    const due = dueIn(5);
    const auth = await authorization(due);
    const charge = await post(owner.key, '/v1/pix-automatic/charges', {
      authorization_id: auth,
      due_date: due,
      amount: 4990,
      reference: `avulsa-${randomUUID()}`,
      description: 'Mensalidade',
      customer: pixBody().customer,
    });
    assert.equal(charge.status, 201, charge.text);
    const sub = await subscribe(subscriptionBody(auth, due));
    const [cycle] = await cycles(sub.id);
    assert.deepEqual(summary([cycle]), [[1, due, 'skipped', 'automatic_charge_exists']]);
    assert.equal(cycle.transaction_id, null);
  });
});

describe('pause and resume (SPEC 3.3)', () => {
  test('SPEC 3.3: resumed while the authorization is alive — 200 active; after it ended — 409 automatic_not_available, still paused', async () => {
    const due = plainDueIn(16);
    const auth = await authorization(due);
    const sub = await subscribe(subscriptionBody(auth, due));
    const paused = await patch(sub.id, { status: 'paused' });
    assert.equal(paused.status, 200, paused.text);
    assert.equal(paused.body.data.status, 'paused');
    const resumed = await patch(sub.id, { status: 'active' });
    assert.equal(resumed.status, 200, resumed.text);
    assert.equal(resumed.body.data.status, 'active');

    assert.equal((await patch(sub.id, { status: 'paused' })).status, 200);
    await simulate(auth, 'cancelled');
    assertError(await patch(sub.id, { status: 'active' }), 409, 'automatic_not_available');
    assert.equal((await subscriptionOf(sub.id)).status, 'paused');
  });

  test('SPEC 3.3: an expired authorization also keeps the subscription paused', async () => {
    const due = plainDueIn(16);
    const auth = await authorization(due, 'pending');
    const sub = await subscribe(subscriptionBody(auth, due));
    assert.equal((await patch(sub.id, { status: 'paused' })).status, 200);
    await simulate(auth, 'expired');
    assertError(await patch(sub.id, { status: 'active' }), 409, 'automatic_not_available');
    assert.equal((await subscriptionOf(sub.id)).status, 'paused');
  });
});

/** SPEC 4.10: `date` plus `months`, the last day of a short month applying (any day of month). */
function plusMonthsAny(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const index = y * 12 + (m - 1) + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${year}-${String(month).padStart(2, '0')}-${String(Math.min(d, last)).padStart(2, '0')}`;
}
