import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { jobs } from '../../src/commands/index.ts';
import type { JobDeps } from '../../src/commands/job.ts';
import { debitPollerJob } from '../../src/commands/pix-automatic/debits/poll/job.ts';
import type { PixAutomaticCapability } from '../../src/providers/port.ts';
import { addDays, pixBody, today } from '../support/charges.ts';
import { type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';
import { seedAuthorization } from '../support/pix-automatic.ts';
import { decorateProviders } from '../support/provider-registry.ts';

/**
 * The Pix Automatic debit poller (SPEC 4.11, 8: "after a debit's due date, the service confirms payment with
 * the provider every 5 minutes for 3 days, then hourly up to 30 days"), run with an injected clock over 30
 * days against the simulator's `queryDebit`, with the payer's bank never debiting (the simulator asked as
 * if before the due date: it answers `CRIADA`, scheduled). Leases: rows claimed with SKIP LOCKED and held,
 * so two workers never ask about one debit at once.
 */

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
let app: TestApp;
let key: SeededKey;
/** Every queryDebit: which debit, at what poller time. */
const calls: { transactionId: string; at: number }[] = [];
/** Debits whose provider read fails (an uncertain answer). */
const failing = new Set<string>();
/** How long each read takes (to make two workers overlap). */
let readDelayMs = 0;

const deps = () => app.gateway.ctx as JobDeps;

async function scheduleDebit(dueDate: string): Promise<string> {
  const authorizationId = await seedAuthorization(app.gateway.ctx, {
    tenantId: key.tenantId,
    livemode: false,
    firstDueDate: dueDate,
  });
  const res = await app.request('POST', '/v1/pix-automatic/charges', {
    headers: { 'x-api-key': key.key, 'idempotency-key': randomUUID() },
    json: {
      authorization_id: authorizationId,
      due_date: dueDate,
      amount: 4990,
      reference: 'assinatura',
      description: 'Assinatura mensal',
      customer: pixBody().customer,
    },
  });
  assert.equal(res.status, 201, res.text);
  await app.settle();
  return res.body.data.id as string;
}

async function nextPollOf(id: string): Promise<Date | null> {
  const row = await app.db.db
    .selectFrom('pix_automatic_debit_polls')
    .select('next_poll_at')
    .where('transaction_id', '=', id)
    .executeTakeFirstOrThrow();
  return row.next_poll_at === null ? null : new Date(row.next_poll_at);
}

beforeAll(async () => {
  app = await startTestApp({ ENABLE_SIMULATOR: 'true' });
  key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
  decorateProviders(app.gateway.ctx, (adapter) => {
    const inner = adapter.pixAutomatic;
    if (!inner) return adapter;
    const pixAutomatic: PixAutomaticCapability = {
      ...inner,
      async queryDebit(target, ctx, now) {
        calls.push({ transactionId: target.transactionId, at: now.getTime() });
        if (readDelayMs > 0) await new Promise((r) => setTimeout(r, readDelayMs));
        if (failing.has(target.transactionId)) throw new Error('connection reset');
        // The payer's bank never debits in these tests: the simulator asked as of the day before the due date.
        return inner.queryDebit(target, ctx, new Date(Date.parse(`${target.dueDate}T00:00:00Z`) - DAY));
      },
    };
    return { ...adapter, pixAutomatic };
  });
});
afterAll(() => app?.close());

describe('Pix Automatic debit poller (SPEC 4.11, 8)', () => {
  test('registered with the features, every minute', () => {
    const job = jobs.find((j) => j.name === 'pix-automatic-debit-poller');
    assert.ok(job);
    assert.equal(job.intervalMs(app.gateway.ctx.config), 60_000);
  });

  test('over 30 days: nothing before the due date, every 5 minutes for 3 days, hourly to 30 days, then stop; refresh still works', async () => {
    const due = addDays(today(), 3);
    const id = await scheduleDebit(due);
    const anchor = Date.parse(`${due}T03:00:00.000Z`);
    const job = debitPollerJob();
    // Before the due date (Brasilia), nothing is due.
    assert.equal((await job.run(deps(), { now: new Date(anchor - MIN) })).claimed, 0);
    // The poller runs whenever the row is due, as the runner would (at least once a minute).
    for (let next = await nextPollOf(id); next !== null; next = await nextPollOf(id)) {
      const r = await job.run(deps(), { now: next });
      assert.equal(r.claimed, 1);
      assert.equal(r.polled[0]?.outcome, 'applied');
    }
    const polls = calls.filter((c) => c.transactionId === id).map((c) => c.at - anchor);
    const frequent = polls.filter((p) => p < 3 * DAY);
    const hourly = polls.filter((p) => p >= 3 * DAY);
    // 00:00 of the due date, then every 5 minutes until 3 days: 3 × 24 × 12 reads.
    assert.equal(frequent.length, 3 * 24 * 12);
    assert.equal(frequent[0], 0);
    assert.ok(frequent.every((p, i) => p === i * 5 * MIN));
    // From 3 days, hourly, the last exactly 30 days after the due date's start: 27 × 24 + 1 reads.
    assert.equal(hourly.length, 27 * 24 + 1);
    assert.ok(hourly.every((p, i) => p === 3 * DAY + i * HOUR));
    assert.equal(polls.at(-1), 30 * DAY);
    // Then stop: nothing is due ever again, and the charge stays pending (nothing final was read).
    assert.equal((await job.run(deps(), { now: new Date(anchor + 45 * DAY) })).claimed, 0);
    const got = await app.request('GET', `/v1/transactions/${id}`, { headers: { 'x-api-key': key.key } });
    assert.equal(got.body.data.status, 'pending');
    const refreshed = await app.request('POST', `/v1/transactions/${id}/refresh`, {
      headers: { 'x-api-key': key.key },
    });
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.equal(refreshed.body.data.status, 'pending');
  }, 120_000);

  test('an uncertain answer keeps the schedule: the next poll comes 5 minutes later all the same', async () => {
    const due = addDays(today(), 4);
    const id = await scheduleDebit(due);
    failing.add(id);
    const anchor = Date.parse(`${due}T03:00:00.000Z`);
    const r = await debitPollerJob().run(deps(), { now: new Date(anchor + 12 * MIN) });
    const mine = r.polled.find((p) => p.transactionId === id);
    assert.equal(mine?.outcome, 'failed');
    assert.equal((await nextPollOf(id))?.getTime(), anchor + 15 * MIN);
    failing.delete(id);
  });

  test('leases: two workers at once never ask about one debit twice; each due debit is asked once', async () => {
    const due = addDays(today(), 5);
    const ids = await Promise.all(Array.from({ length: 12 }, () => scheduleDebit(due)));
    const at = new Date(Date.parse(`${due}T03:00:00.000Z`) + 20 * MIN);
    const before = calls.length;
    readDelayMs = 30;
    try {
      const [a, b] = await Promise.all([
        debitPollerJob({ batchSize: 8, concurrency: 4 }).run(deps(), { now: at }),
        debitPollerJob({ batchSize: 8, concurrency: 4 }).run(deps(), { now: at }),
      ]);
      // Other tests' debits may be due too: these twelve are what this test counts.
      const mine = (r: typeof a) => r.polled.map((p) => p.transactionId).filter((id) => ids.includes(id));
      assert.equal(mine(a).length + mine(b).length, 12);
      const claimedA = new Set(a.polled.map((p) => p.transactionId));
      assert.ok(b.polled.every((p) => !claimedA.has(p.transactionId)));
    } finally {
      readDelayMs = 0;
    }
    const asked = calls
      .slice(before)
      .map((c) => c.transactionId)
      .filter((id) => ids.includes(id));
    assert.deepEqual([...asked].sort(), [...ids].sort());
  });

  test('the due set is read through the partial index pix_automatic_debit_polls_due', async () => {
    const plan = await app.db.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const r = await sql<{
        'QUERY PLAN': string;
      }>`explain select transaction_id from pix_automatic_debit_polls
        where next_poll_at is not null and next_poll_at <= now()
        order by next_poll_at limit 200 for update skip locked`.execute(trx);
      return r.rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    assert.match(plan, /pix_automatic_debit_polls_due/);
  });
});
