import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { jobs } from '../../src/commands/index.ts';
import type { JobDeps } from '../../src/commands/job.ts';
import { subscriptionSchedulerJob } from '../../src/commands/subscriptions/schedule/job.ts';
import { type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';
import { seedSubscription } from '../support/subscriptions.ts';

/**
 * The scheduler job itself (SPEC 8: every minute; issue 26 item 4, 8): registered in the feature list,
 * claiming the system clock's due subscriptions by the partial index, `more` when its batch was full.
 */

const _metadata = { actor: 'system:test', request_id: 'req_sub_job' };
let app: TestApp;
let tenant: SeededKey;

beforeAll(async () => {
  app = await startTestApp({ ENABLE_SIMULATOR: 'true' });
  tenant = await seedTenantAndKey(app.gateway.ctx);
});
afterAll(() => app?.close());

const create = (first: string, testClockId: string | null = null) =>
  seedSubscription(app.gateway.ctx, tenant.tenantId, {
    first_due_date: first,
    amount: 5000,
    test_clock_id: testClockId,
  });

describe('subscription scheduler job (SPEC 8)', () => {
  test('registered with the features, every minute', () => {
    const job = jobs.find((j) => j.name === 'subscription-scheduler');
    assert.ok(job);
    assert.equal(job.intervalMs(app.gateway.ctx.config), 60_000);
  });

  test('claims only due subscriptions of the system clock, by batch (more while full), each issued once', async () => {
    const due = await Promise.all([1, 2, 3].map(() => create('2027-10-05')));
    const later = await create('2027-11-05');
    const onClock = await create('2027-10-05', 'clk_elsewhere');
    await app.settle();
    const job = subscriptionSchedulerJob({ batchSize: 2 });
    const now = new Date('2027-10-05T03:00:00Z');
    const deps = app.gateway.ctx as JobDeps;
    const first = await job.run(deps, { now });
    assert.equal(first.claimed, 2);
    assert.equal(first.more, true);
    await app.settle();
    const second = await job.run(deps, { now });
    assert.equal(second.claimed, 1);
    assert.equal(second.more, false);
    await app.settle();
    const refs = await app.db.db
      .selectFrom('transactions')
      .select('reference')
      .where('tenant_id', '=', tenant.tenantId)
      .orderBy('reference')
      .execute();
    assert.deepEqual(
      refs.map((r) => r.reference),
      due.map((id) => `sub_${id}:2027-10-05`).sort(),
    );
    assert.ok(!refs.some((r) => r.reference.includes(later) || r.reference.includes(onClock)));
    assert.equal((await job.run(deps, { now })).claimed, 0);
  });

  test('issue 26 item 8: the due set is read through the partial index subscriptions_due', async () => {
    const plan = await app.db.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const r = await sql<{ 'QUERY PLAN': string }>`explain select id from subscriptions
        where test_clock_id is null and next_run_at is not null and next_run_at <= now()
        order by next_run_at limit 500 for update skip locked`.execute(trx);
      return r.rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    assert.match(plan, /subscriptions_due/);
  });
});
