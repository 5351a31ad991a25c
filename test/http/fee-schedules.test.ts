import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { renderMessageBodies } from '../../src/workers/webhook-message-body.ts';
import { roleTokens, startAdminApp } from '../support/admin.ts';
import { addDays, boletoBody, pixBody, today } from '../support/charges.ts';
import { type SeededKey, seedChildTenant, seedTenantAndKey } from '../support/fixtures.ts';
import type { TestApp } from '../support/http.ts';
import { seedAuthorization } from '../support/pix-automatic.ts';

/**
 * Issue 28 item 4: fee schedules (POST/GET /admin/fee-schedules) and the fees fixed at issuance: SPEC 2.2
 * `retained_amount` (own + inherited), `split`, `tenant_fee_id`, `fee_starts_on`; SPEC 7 `fee_exceeds_amount`
 * and `split_*` before reservation; SPEC 5.7 roles; docs/decisions.md "Fees and split (issue 28 item 4)".
 * Expected amounts are computed here from the documented rule: each level's percentage part rounded half
 * up to the centavo, plus its fixed part, summed over the tenant and every ancestor.
 */

let app: TestApp;
let as: Awaited<ReturnType<typeof roleTokens>>;
/** A tree root -> mid -> leaf, each with a live key (served by the simulator) and a test key. */
let root: SeededKey;
let mid: SeededKey;
let leaf: SeededKey;
let leafTest: SeededKey;
let outsider: SeededKey;

const post = (json: unknown, headers = as.super_admin) =>
  app.request('POST', '/admin/fee-schedules', { json, headers });
const list = (query: string, headers = as.super_admin) =>
  app.request('GET', `/admin/fee-schedules${query}`, { headers });

async function addVersion(
  tenantId: string,
  method: string,
  percent_bps: number,
  fixed_amount: number,
  starts_on = today(),
) {
  const res = await post({ tenant_id: tenantId, method, percent_bps, fixed_amount, starts_on });
  assert.equal(res.status, 201, res.text);
  return res.body.data as { id: string; starts_on: string };
}

function charge(key: string, path: '/v1/pix' | '/v1/boleto', json: unknown) {
  return app.request('POST', path, { headers: { 'x-api-key': key, 'idempotency-key': randomUUID() }, json });
}

const getTxn = (key: string, id: string) =>
  app.request('GET', `/v1/transactions/${id}`, { headers: { 'x-api-key': key } });

async function eventCount(): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*)::text as n from events`.execute(app.db.db);
  return Number(rows[0]?.n);
}

/** Half up per level, then summed (the documented rule), written out independently of the code. */
const half_up = (amount: number, bps: number) => Math.floor((amount * bps) / 10_000 + 0.5);

beforeAll(async () => {
  app = await startAdminApp({ ENABLE_SIMULATOR: 'true', RATE_LIMIT_PER_MINUTE: '100000' });
  as = await roleTokens(app);
  root = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
  mid = await seedChildTenant(app.gateway.ctx, root.tenantId, { livemode: true });
  leaf = await seedChildTenant(app.gateway.ctx, mid.tenantId, { livemode: true });
  leafTest = await seedChildTenant(app.gateway.ctx, leaf.tenantId, { livemode: false });
  outsider = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
});
afterAll(() => app.close());

describe('POST /admin/fee-schedules', () => {
  test('201: a version with its rates and start date; the same again is 200 with nothing appended', async () => {
    const t = await seedTenantAndKey(app.gateway.ctx);
    const body = {
      tenant_id: t.tenantId,
      method: 'credit_card',
      percent_bps: 399,
      fixed_amount: 0,
      starts_on: addDays(today(), 3),
    };
    const res = await post(body);
    assert.equal(res.status, 201, res.text);
    const v = res.body.data;
    assert.match(v.id, /^fee_/);
    assert.deepEqual(
      { ...v, id: undefined, created_at: undefined },
      { ...body, id: undefined, created_at: undefined },
    );
    const before = await eventCount();
    const again = await post(body);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body.data, v);
    assert.equal(await eventCount(), before);
  });

  test('versions are immutable: other rates on the date of an existing version are 409 conflict', async () => {
    const t = await seedTenantAndKey(app.gateway.ctx);
    await addVersion(t.tenantId, 'pix', 100, 0, addDays(today(), 1));
    const before = await eventCount();
    const res = await post({
      tenant_id: t.tenantId,
      method: 'pix',
      percent_bps: 101,
      fixed_amount: 0,
      starts_on: addDays(today(), 1),
    });
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'conflict');
    assert.equal(await eventCount(), before);
  });

  test('bad input: 422 validation_error (range, past date), 400 invalid_json (unknown field), 404 missing tenant; nothing appended', async () => {
    const before = await eventCount();
    const ok = {
      tenant_id: root.tenantId,
      method: 'pix',
      percent_bps: 10,
      fixed_amount: 1,
      starts_on: addDays(today(), 9),
    };
    for (const bad of [
      { percent_bps: 10_001 },
      { percent_bps: -1 },
      { fixed_amount: -1 },
      { starts_on: addDays(today(), -1) },
      { starts_on: '2026-02-30' },
      { method: 'pix_automatic' },
    ]) {
      const res = await post({ ...ok, ...bad });
      assert.equal(res.status, 422, `${JSON.stringify(bad)}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_error');
    }
    // SPEC 1, 7: fractions are refused like any non-integer amount.
    for (const bad of [{ percent_bps: 1.5 }, { fixed_amount: '10' }]) {
      const res = await post({ ...ok, ...bad });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'invalid_json');
    }
    const unknown = await post({ ...ok, split: { on: 'pix' } });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.code, 'invalid_json');
    const missing = await post({ ...ok, tenant_id: 'ten_missing' });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'not_found');
    assert.equal(await eventCount(), before);
  });

  test('roles (SPEC 5.7): only super_admin writes; tenant_admin and viewer 403, no session 401', async () => {
    const ok = {
      tenant_id: as.tenantId,
      method: 'pix',
      percent_bps: 10,
      fixed_amount: 1,
      starts_on: addDays(today(), 9),
    };
    for (const headers of [as.tenant_admin, as.viewer]) {
      const res = await post(ok, headers);
      assert.equal(res.status, 403, res.text);
      assert.equal(res.body.error.code, 'forbidden');
    }
    const anonymous = await app.request('POST', '/admin/fee-schedules', { json: ok });
    assert.equal(anonymous.status, 401);
    // An API key is not a panel session.
    const byKey = await app.request('POST', '/admin/fee-schedules', {
      json: ok,
      headers: { 'x-api-key': root.key },
    });
    assert.equal(byKey.status, 401);
  });

  test('the change is audited', async () => {
    const t = await seedTenantAndKey(app.gateway.ctx);
    const v = await addVersion(t.tenantId, 'boleto', 0, 100, addDays(today(), 2));
    await app.settle();
    const audit = await app.request('GET', `/admin/audit?tenant_id=${t.tenantId}`, {
      headers: as.super_admin,
    });
    assert.equal(audit.status, 200, audit.text);
    const entry = audit.body.data.find((e: { action: string }) => e.action === 'fee_schedule.version_added');
    assert.ok(entry, audit.text);
    assert.ok(JSON.stringify(entry).includes(v.id));
  });
});

describe('GET /admin/fee-schedules', () => {
  test('filters by tenant and method; tenant_admin and viewer see only their own tree (cross-tenant)', async () => {
    const child = await seedChildTenant(app.gateway.ctx, as.tenantId);
    const own = await addVersion(as.tenantId, 'pix', 50, 0, addDays(today(), 4));
    const ofChild = await addVersion(child.tenantId, 'boleto', 0, 90, addDays(today(), 4));
    const elsewhere = await addVersion(outsider.tenantId, 'pix', 70, 0, addDays(today(), 4));

    const all = await list(`?tenant_id=${as.tenantId}&method=pix`);
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(
      all.body.data.map((v: { id: string }) => v.id),
      [own.id],
    );
    const superSees = await list(`?tenant_id=${outsider.tenantId}`);
    assert.ok(superSees.body.data.some((v: { id: string }) => v.id === elsewhere.id));

    for (const headers of [as.tenant_admin, as.viewer]) {
      const mine = await list('?limit=100', headers);
      assert.equal(mine.status, 200, mine.text);
      const ids = mine.body.data.map((v: { id: string }) => v.id).sort();
      assert.deepEqual(ids, [own.id, ofChild.id].sort());
      const other = await list(`?tenant_id=${outsider.tenantId}`, headers);
      assert.deepEqual(other.body.data, []);
    }
    const bad = await list('?method=card');
    assert.equal(bad.status, 422);
  });
});

describe('fees at issuance (SPEC 2.2, 7)', () => {
  test('depth 1: pix on its own version; retained, split, tenant_fee_id and fee_starts_on on GET and in the webhook', async () => {
    // A test key: its simulated charge can be paid by simulate (SPEC 4.7).
    const t = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
    const v = await addVersion(t.tenantId, 'pix', 199, 30);
    const res = await charge(
      t.key,
      '/v1/pix',
      pixBody({ amount: 1000, callback_url: 'https://example.com/hook' }),
    );
    assert.equal(res.status, 201, res.text);
    const retained = half_up(1000, 199) + 30; // 20 + 30
    const expected = {
      retained_amount: retained,
      split: { total_fee_amount: retained, merchant_amount: 1000 - retained, on: 'pix' },
      tenant_fee_id: v.id,
      fee_starts_on: today(),
    };
    const pick = (d: Record<string, unknown>) => ({
      retained_amount: d.retained_amount,
      split: d.split,
      tenant_fee_id: d.tenant_fee_id,
      fee_starts_on: d.fee_starts_on,
    });
    assert.deepEqual(pick(res.body.data), expected);
    const got = await getTxn(t.key, res.body.data.id);
    assert.deepEqual(pick(got.body.data), expected);
    await app.settle();
    const list_ = await app.request('GET', '/v1/transactions', { headers: { 'x-api-key': t.key } });
    assert.deepEqual(pick(list_.body.data[0]), expected);

    const paid = await app.request('POST', `/v1/transactions/${res.body.data.id}/simulate`, {
      headers: { 'x-api-key': t.key },
      json: { status: 'paid' },
    });
    assert.equal(paid.status, 200, paid.text);
    await app.settle();
    const messages = await app.db.db
      .selectFrom('webhook_messages')
      .select([
        'id as message_id',
        'type',
        'status',
        'transaction_id',
        'sequence',
        'previous_status',
        'occurred_at',
        'snapshot',
      ])
      .where('transaction_id', '=', res.body.data.id)
      .orderBy('sequence')
      .execute();
    // Created, then an update per status change (pending, paid): every one carries the same fee facts.
    assert.equal(messages[0]?.type, 'transaction.created');
    assert.equal(messages.at(-1)?.type, 'transaction.updated');
    assert.equal(messages.at(-1)?.status, 'paid');
    const bodies = await renderMessageBodies(app.gateway.ctx, messages);
    for (const m of messages) {
      const body = JSON.parse(bodies.get(m.message_id) ?? '{}');
      assert.deepEqual(pick(body.data), expected, m.type);
    }
  });

  test('depth 3: a leaf boleto retains root + mid fees (positive inheritance: own fields null); then its own version', async () => {
    await addVersion(root.tenantId, 'boleto', 0, 200);
    await addVersion(mid.tenantId, 'boleto', 125, 0);
    const amount = 5_005;
    const inherited = 200 + half_up(amount, 125); // 200 + 62.5625 -> 63
    const res = await charge(leaf.key, '/v1/boleto', boletoBody({}, { amount }));
    assert.equal(res.status, 201, res.text);
    const t = (await getTxn(leaf.key, res.body.data.id)).body.data;
    assert.equal(t.retained_amount, inherited);
    assert.deepEqual(t.split, {
      total_fee_amount: inherited,
      merchant_amount: amount - inherited,
      on: 'boleto',
    });
    assert.equal(t.tenant_fee_id, null);
    assert.equal(t.fee_starts_on, null);
    // The parent reads its child's charge with the same facts (SPEC 4.4).
    assert.equal((await getTxn(root.key, res.body.data.id)).body.data.retained_amount, inherited);

    const own = await addVersion(leaf.tenantId, 'boleto', 10, 5);
    const next = await charge(leaf.key, '/v1/boleto', boletoBody({}, { amount }));
    assert.equal(next.status, 201, next.text);
    const withOwn = inherited + half_up(amount, 10) + 5;
    assert.equal(next.body.data.retained_amount, withOwn);
    assert.equal(next.body.data.tenant_fee_id, own.id);
    assert.equal(next.body.data.fee_starts_on, today());
    // A Pix of the same leaf has no pix fees anywhere in the chain.
    const pix = await charge(leaf.key, '/v1/pix', pixBody({ amount }));
    assert.deepEqual(pix.body.data.split, { total_fee_amount: 0, merchant_amount: amount, on: 'pix' });
    assert.equal(pix.body.data.retained_amount, 0);
  });

  test('cross-mode: a test key of a child inherits the same tree fees; another tree is untouched', async () => {
    await addVersion(leaf.tenantId, 'pix', 0, 7);
    const res = await charge(leafTest.key, '/v1/pix', pixBody({ amount: 2000 }));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.livemode, false);
    // root/mid have no pix fees; the leaf's 7 is inherited by its child; the child has none of its own.
    assert.equal(res.body.data.retained_amount, 7);
    assert.equal(res.body.data.tenant_fee_id, null);
    const other = await charge(outsider.key, '/v1/pix', pixBody({ amount: 2000 }));
    assert.equal(other.body.data.retained_amount, 0);
  });

  test('fixed forever: a version starting later does not touch a charge issued before it, only new ones', async () => {
    const t = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
    const first = await addVersion(t.tenantId, 'pix', 100, 0);
    const later = await addVersion(t.tenantId, 'pix', 300, 0, addDays(today(), 1));
    const before = await charge(t.key, '/v1/pix', pixBody({ amount: 10_000 }));
    assert.equal(before.body.data.retained_amount, 100);
    const real = app.gateway.ctx.now;
    app.gateway.ctx.now = () => new Date(Date.now() + 86_400_000);
    try {
      const after = await charge(t.key, '/v1/pix', pixBody({ amount: 10_000 }));
      assert.equal(after.status, 201, after.text);
      assert.equal(after.body.data.retained_amount, 300);
      assert.equal(after.body.data.tenant_fee_id, later.id);
      const old = await getTxn(t.key, before.body.data.id);
      assert.equal(old.body.data.retained_amount, 100);
      assert.equal(old.body.data.tenant_fee_id, first.id);
    } finally {
      app.gateway.ctx.now = real;
    }
  });

  test('422 fee_exceeds_amount and split_no_merchant_amount before reservation: no event, no charge', async () => {
    const t = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
    const c = await seedChildTenant(app.gateway.ctx, t.tenantId, { livemode: true });
    await addVersion(t.tenantId, 'boleto', 0, 300);
    await addVersion(c.tenantId, 'boleto', 0, 100);
    const before = await eventCount();
    const over = await charge(c.key, '/v1/boleto', boletoBody({}, { amount: 399 }));
    assert.equal(over.status, 422, over.text);
    assert.equal(over.body.error.code, 'fee_exceeds_amount');
    assert.equal(over.body.error.transaction_id, undefined);
    const equal = await charge(c.key, '/v1/boleto', boletoBody({}, { amount: 400 }));
    assert.equal(equal.status, 422, equal.text);
    assert.equal(equal.body.error.code, 'split_no_merchant_amount');
    assert.equal(await eventCount(), before);
    const { rows } = await sql<{
      n: string;
    }>`select count(*)::text as n from transactions where tenant_id = ${c.tenantId}`.execute(app.db.db);
    assert.equal(rows[0]?.n, '0');
    const fine = await charge(c.key, '/v1/boleto', boletoBody({}, { amount: 401 }));
    assert.equal(fine.status, 201, fine.text);
    assert.deepEqual(fine.body.data.split, { total_fee_amount: 400, merchant_amount: 1, on: 'boleto' });
  });

  test('split, retained_amount and tenant_fee_id are never accepted from a client: 400 invalid_json', async () => {
    for (const extra of [
      { split: { total_fee_amount: 0, merchant_amount: 1000, on: 'pix' } },
      { retained_amount: 0 },
      { tenant_fee_id: 'fee_x' },
      { fee_starts_on: today() },
    ]) {
      const res = await charge(root.key, '/v1/pix', pixBody(extra));
      assert.equal(res.status, 400, `${JSON.stringify(extra)}: ${res.text}`);
      assert.equal(res.body.error.code, 'invalid_json');
    }
  });

  test('a replay answers the fees fixed at reservation even after a new version', async () => {
    const t = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
    await addVersion(t.tenantId, 'pix', 0, 11);
    const key = randomUUID();
    const send = () =>
      app.request('POST', '/v1/pix', {
        headers: { 'x-api-key': t.key, 'idempotency-key': key },
        json: pixBody(),
      });
    const first = await send();
    assert.equal(first.body.data.retained_amount, 11);
    const real = app.gateway.ctx.now;
    await addVersion(t.tenantId, 'pix', 0, 99, addDays(today(), 1));
    app.gateway.ctx.now = () => new Date(Date.now() + 86_400_000);
    try {
      const replay = await send();
      assert.equal(replay.status, 200, replay.text);
      assert.equal(replay.body.data.retained_amount, 11);
    } finally {
      app.gateway.ctx.now = real;
    }
  });

  test('a Pix Automatic debit is a Pix charge: it retains the pix fees of its chain (boleto fees do not apply)', async () => {
    const t = await seedChildTenant(app.gateway.ctx, mid.tenantId, { livemode: false });
    const own = await addVersion(t.tenantId, 'pix', 50, 3);
    const due = addDays(today(), 5);
    const authorization = await seedAuthorization(app.gateway.ctx, {
      tenantId: t.tenantId,
      livemode: false,
      firstDueDate: due,
      amount: 4990,
    });
    const res = await app.request('POST', '/v1/pix-automatic/charges', {
      headers: { 'x-api-key': t.key, 'idempotency-key': randomUUID() },
      json: {
        authorization_id: authorization,
        due_date: due,
        amount: 4990,
        reference: 'assinatura-fees',
        description: 'Assinatura mensal',
        customer: pixBody().customer,
      },
    });
    assert.equal(res.status, 201, res.text);
    // root and mid have boleto versions only; the debit's own pix version: 0.50% of 4990 = 24.95 -> 25, + 3.
    const retained = half_up(4990, 50) + 3;
    assert.equal(res.body.data.retained_amount, retained);
    assert.deepEqual(res.body.data.split, {
      total_fee_amount: retained,
      merchant_amount: 4990 - retained,
      on: 'pix',
    });
    assert.equal(res.body.data.tenant_fee_id, own.id);
  });
});
