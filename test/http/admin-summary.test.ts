import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { type TransactionCommand, transaction } from '../../src/aggregates/transaction.ts';
import { handleCommand } from '../../src/commands/command-handler.ts';
import { suspendTenant } from '../../src/commands/tenants/suspend/handler.ts';
import { newId } from '../../src/ids.ts';
import { summaryProjection } from '../../src/projections/summary.ts';
import { assertError, roleTokens, startAdminApp } from '../support/admin.ts';
import { commandDeps, seedChildTenant, seedTenantAndKey } from '../support/fixtures.ts';
import type { TestApp } from '../support/http.ts';
import { type ChargeKind, commandOf, reserveCommand } from '../support/transactions.ts';

const metadata = { actor: 'system:test', request_id: 'req_summary' };
/** 09:00 on 10 March in America/Sao_Paulo. */
const NOW = new Date('2026-03-10T12:00:00.000Z');

type Tokens = Awaited<ReturnType<typeof roleTokens>>;

describe('GET /admin/summary (SPEC 4.14, 5.7 "Read transactions")', () => {
  let app: TestApp;
  let tokens: Tokens;
  let root: string;
  let child: string;
  let other: string;
  let clock = NOW.getTime();
  let realNow: () => Date;

  /** A charge of `tenantId`, reserved at `at`, then taken through `steps` (every command must be accepted). */
  async function charge(
    tenantId: string,
    kind: ChargeKind,
    amount: number,
    at: string,
    steps: readonly ('issue' | 'pay' | 'refuse')[] = [],
  ) {
    const id = newId('txn');
    const base = reserveCommand(id, kind);
    const reserve: TransactionCommand = {
      ...base,
      tenantId,
      amount,
      request: { ...base.request, tenant_id: tenantId, amount },
    };
    clock = new Date(at).getTime();
    const deps = { ...commandDeps(app.gateway.ctx), now: () => new Date(clock) };
    const run = (c: TransactionCommand) =>
      handleCommand(deps, transaction, `transaction-${id}`, c, { metadata });
    await run(reserve);
    for (const step of steps) {
      if (step === 'issue')
        await run(
          commandOf('record_issued', { transactionId: id, chargeKind: kind, observed: 'processing' }),
        );
      if (step === 'refuse')
        await run(
          commandOf('record_refused', { transactionId: id, chargeKind: kind, observed: 'processing' }),
        );
      if (step === 'pay') await run({ kind: 'simulate_paid' });
    }
    return id;
  }

  const get = (path: string, headers: Record<string, string>) => app.request('GET', path, { headers });

  beforeAll(async () => {
    app = await startAdminApp();
    tokens = await roleTokens(app);
    root = tokens.tenantId;
    child = (await seedChildTenant(app.gateway.ctx, root)).tenantId;
    const suspended = (await seedChildTenant(app.gateway.ctx, root)).tenantId;
    await suspendTenant(commandDeps(app.gateway.ctx), suspended, metadata);
    other = (await seedTenantAndKey(app.gateway.ctx)).tenantId;

    // 02:30 UTC on 10 March is 23:30 on 9 March in Sao Paulo: it belongs to the 9th.
    await charge(root, 'pix_simulated', 1000, '2026-03-10T02:30:00.000Z', ['issue', 'pay']);
    // 03:30 UTC is 00:30 on the 10th in Sao Paulo.
    await charge(root, 'boleto_live', 2000, '2026-03-10T03:30:00.000Z', ['refuse']);
    await charge(child, 'pix_simulated', 500, '2026-03-09T12:00:00.000Z', ['issue']);
    // Before the 7-day window (which opens at 2026-03-03T12:00Z), inside the 30-day one.
    await charge(root, 'pix_simulated', 300, '2026-03-03T11:59:59.000Z');
    await charge(root, 'pix_test', 700, '2026-03-10T01:00:00.000Z');
    await charge(other, 'pix_simulated', 4000, '2026-03-10T10:00:00.000Z');
    // Created "after now" (clock skew): outside the window.
    await charge(root, 'pix_simulated', 50, '2026-03-10T12:00:01.000Z');

    await app.gateway.runner.catchUp(summaryProjection);
    realNow = app.gateway.ctx.now;
    app.gateway.ctx.now = () => NOW;
  });
  afterAll(async () => {
    app.gateway.ctx.now = realNow;
    await app.close();
  });

  test('super_admin: every tenant, the window, totals, statuses, Sao Paulo days with zeros', async () => {
    const res = await get('/admin/summary?days=7', tokens.super_admin);
    assert.equal(res.status, 200, res.text);
    const d = res.body.data;
    assert.equal(d.days, 7);
    assert.equal(d.livemode, true);
    assert.equal(d.tenant_id, null);
    assert.deepEqual(d.window, {
      from: '2026-03-03T12:00:00.000Z',
      to: '2026-03-10T12:00:00.000Z',
      time_zone: 'America/Sao_Paulo',
    });
    assert.deepEqual(d.totals, {
      created_count: 4,
      created_amount: 7500,
      paid_count: 1,
      paid_amount: 1000,
      success_rate: 0.25,
    });
    assert.deepEqual(d.status_counts, {
      processing: 1,
      pending: 1,
      paid: 1,
      expired: 0,
      failed: 1,
      unknown: 0,
      refunded: 0,
    });
    // 8 calendar days: the window's first and last days are partial.
    assert.deepEqual(
      d.daily.map((e: { date: string }) => e.date),
      ['03', '04', '05', '06', '07', '08', '09', '10'].map((day) => `2026-03-${day}`),
    );
    const day = (date: string) => d.daily.find((e: { date: string }) => e.date === date);
    assert.deepEqual(day('2026-03-03'), {
      date: '2026-03-03',
      created_count: 0,
      created_amount: 0,
      paid_count: 0,
      paid_amount: 0,
    });
    assert.deepEqual(day('2026-03-09'), {
      date: '2026-03-09',
      created_count: 2,
      created_amount: 1500,
      paid_count: 1,
      paid_amount: 1000,
    });
    assert.deepEqual(day('2026-03-10'), {
      date: '2026-03-10',
      created_count: 2,
      created_amount: 6000,
      paid_count: 0,
      paid_amount: 0,
    });
    const { rows } = await sql<{ n: string }>`select count(*) as n from tenants`.execute(app.gateway.ctx.db);
    assert.equal(d.tenants.total, Number(rows[0]?.n));
    assert.equal(d.tenants.suspended, 1);
  });

  test('tenant_admin and viewer: their own tree only, with its tenant counts', async () => {
    for (const role of ['tenant_admin', 'viewer'] as const) {
      const res = await get('/admin/summary?days=7', tokens[role]);
      assert.equal(res.status, 200, res.text);
      const d = res.body.data;
      assert.deepEqual(d.totals, {
        created_count: 3,
        created_amount: 3500,
        paid_count: 1,
        paid_amount: 1000,
        success_rate: 0.3333,
      });
      assert.deepEqual(d.tenants, { total: 3, active: 2, suspended: 1 });
    }
  });

  test('days defaults to 30 and is echoed; the window moves with it', async () => {
    const res = await get('/admin/summary', tokens.tenant_admin);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.days, 30);
    assert.equal(res.body.data.totals.created_count, 4);
    assert.equal(res.body.data.daily.length, 31);
    const one = await get('/admin/summary?days=1', tokens.tenant_admin);
    assert.equal(one.body.data.days, 1);
    assert.deepEqual(
      one.body.data.daily.map((e: { date: string; created_count: number }) => [e.date, e.created_count]),
      // The child's charge was created exactly at now - 1 day: the bound is inclusive.
      [
        ['2026-03-09', 2],
        ['2026-03-10', 1],
      ],
    );
    const max = await get('/admin/summary?days=365', tokens.tenant_admin);
    assert.equal(max.status, 200, max.text);
    assert.equal(max.body.data.daily.length, 366);
  });

  test('tenant_id selects a permitted subtree; outside the tree is 404', async () => {
    const sub = await get(`/admin/summary?days=7&tenant_id=${child}`, tokens.viewer);
    assert.equal(sub.status, 200, sub.text);
    assert.equal(sub.body.data.tenant_id, child);
    assert.equal(sub.body.data.totals.created_count, 1);
    assert.equal(sub.body.data.totals.created_amount, 500);
    assert.equal(sub.body.data.status_counts.pending, 1);
    assert.equal(sub.body.data.totals.success_rate, 0);
    assert.deepEqual(sub.body.data.tenants, { total: 1, active: 1, suspended: 0 });
    assertError(await get(`/admin/summary?tenant_id=${other}`, tokens.tenant_admin), 404, 'not_found');
    assertError(await get('/admin/summary?tenant_id=ten_missing', tokens.super_admin), 404, 'not_found');
    const otherRes = await get(`/admin/summary?days=7&tenant_id=${other}`, tokens.super_admin);
    assert.equal(otherRes.status, 200, otherRes.text);
    assert.equal(otherRes.body.data.totals.created_amount, 4000);
  });

  test('livemode=false summarizes test-mode charges only', async () => {
    const res = await get('/admin/summary?days=7&livemode=false', tokens.tenant_admin);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.livemode, false);
    assert.equal(res.body.data.totals.created_count, 1);
    assert.equal(res.body.data.totals.created_amount, 700);
    assert.equal(res.body.data.status_counts.processing, 1);
  });

  test('days out of range or not an integer, and unknown parameters, are 422', async () => {
    for (const q of ['days=0', 'days=366', 'days=1.5', 'days=abc', 'days=-1', 'livemode=yes', 'extra=1']) {
      assertError(await get(`/admin/summary?${q}`, tokens.super_admin), 422, 'validation_error');
    }
  });

  test('property: the rollup answers what summing every charge of the window would (migration 0011)', async () => {
    const db = app.gateway.ctx.db;
    const window = fc.record({
      // From the 2nd to the 12th of March, on any second: partial first days of every shape.
      at: fc.integer({ min: Date.parse('2026-03-02T00:00:00Z'), max: Date.parse('2026-03-12T00:00:00Z') }),
      days: fc.integer({ min: 1, max: 12 }),
    });
    await fc.assert(
      fc.asyncProperty(window, async ({ at, days }) => {
        const now = new Date(Math.floor(at / 1000) * 1000);
        app.gateway.ctx.now = () => now;
        const res = await get(`/admin/summary?days=${days}`, tokens.super_admin);
        assert.equal(res.status, 200, res.text);
        const from = new Date(now.getTime() - days * 86_400_000);
        const { rows } = await sql<{ day: string; n: number; amount: number; paid_n: number; paid: number }>`
          select created_day::text as day, count(*)::int as n, sum(amount)::int as amount,
                 count(paid_at)::int as paid_n, coalesce(sum(amount) filter (where paid_at is not null), 0)::int as paid
          from summary_transactions where livemode and created_at >= ${from} and created_at <= ${now}
          group by 1`.execute(db);
        const nonZero = res.body.data.daily.filter((e: { created_count: number }) => e.created_count > 0);
        assert.deepEqual(
          nonZero.map((e: Record<string, number>) => [
            e.date,
            e.created_count,
            e.created_amount,
            e.paid_count,
            e.paid_amount,
          ]),
          rows
            .sort((a, b) => a.day.localeCompare(b.day))
            .map((r) => [r.day, r.n, r.amount, r.paid_n, r.paid]),
        );
      }),
      { numRuns: 40 },
    );
    app.gateway.ctx.now = () => NOW;
  });

  test('needs a session', async () => {
    assertError(await get('/admin/summary', {}), 401, 'unauthorized');
  });
});
