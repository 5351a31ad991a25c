import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { test } from 'vitest';
import { cliEnv as env, runCli as run } from '../support/cli.ts';
import { createTestDatabase } from '../support/databases.ts';

// Issue 7 item 1: `calebe dev seed` writes what the deciders emit, and every read model agrees with the log.

const DAY_MS = 86_400_000;

test('calebe dev seed: a tenant tree, realistic charges, read models equal to the fold, audit replay clean', async () => {
  const db = await createTestDatabase();
  try {
    const e = env(db.url);
    const seeded = await run(
      [
        'dev',
        'seed',
        '--tenants',
        '3',
        '--transactions',
        '900',
        '--primary',
        '300',
        '--batch',
        '250',
        '--seed',
        '7',
      ],
      e,
    );
    assert.equal(seeded.code, 0, seeded.out);
    assert.match(seeded.out, /appended 900 transactions \(\d+ events\) for 3 tenants/);

    // The tree: one root, two children; cost centers through their commands.
    const tenants = await db.db.selectFrom('tenants').select(['id', 'parent_id']).execute();
    assert.equal(tenants.length, 3);
    assert.equal(tenants.filter((t) => t.parent_id === null).length, 1);
    const centers = await db.db.selectFrom('cost_centers').select('id').execute();
    assert.ok(centers.length >= 3);

    // Charges: every tenant has some, the primary its 300; both methods, both modes, statuses like reality.
    const perTenant = await db.db
      .selectFrom('transactions')
      .select(['tenant_id', sql<string>`count(*)`.as('n')])
      .groupBy('tenant_id')
      .execute();
    assert.equal(perTenant.length, 3);
    assert.equal(
      perTenant.reduce((a, r) => a + Number(r.n), 0),
      900,
    );
    assert.ok(perTenant.some((r) => Number(r.n) === 300));
    const shape = await sql<Record<string, string>>`
      select count(*) filter (where method = 'pix') as pix, count(*) filter (where method = 'boleto') as boleto,
        count(*) filter (where livemode) as live, count(*) filter (where not livemode) as test,
        count(*) filter (where status = 'paid') as paid, count(*) filter (where status = 'expired') as expired,
        count(*) filter (where status = 'pending') as pending, count(*) filter (where status = 'failed') as failed,
        count(*) filter (where status = 'unknown') as unknown, count(*) filter (where status = 'refunded') as refunded,
        count(*) filter (where cost_center_id is not null) as with_center,
        count(distinct amount) as amounts, min(created_at) as oldest, max(created_at) as newest
      from transactions`.execute(db.db);
    const s = shape.rows[0] as Record<string, string | Date>;
    for (const k of [
      'pix',
      'boleto',
      'live',
      'test',
      'paid',
      'expired',
      'pending',
      'failed',
      'with_center',
    ]) {
      assert.ok(Number(s[k]) > 0, `${k}: ${s[k]}`);
    }
    assert.ok(Number(s.paid) > 450, `most charges are paid: ${s.paid}`);
    assert.ok(Number(s.amounts) > 100, 'amounts vary');
    const now = Date.now();
    assert.ok(
      new Date(s.oldest as Date).getTime() < now - 200 * DAY_MS,
      'creation spread over the last year',
    );
    assert.ok(new Date(s.oldest as Date).getTime() > now - 366 * DAY_MS);
    assert.ok(new Date(s.newest as Date).getTime() > now - 2 * DAY_MS);

    // The async read models caught up, and agree with the inline one charge by charge.
    const mismatch = await sql<{ n: string }>`
      select count(*) as n from transactions t full join summary_transactions s on s.transaction_id = t.id
      where s.transaction_id is null or t.id is null or s.status <> t.status or s.created_at <> t.created_at
        or s.paid_at is distinct from t.paid_at or s.amount <> t.amount or s.tenant_id <> t.tenant_id`.execute(
      db.db,
    );
    assert.equal(Number(mismatch.rows[0]?.n), 0);
    const catalog = await sql<{ n: string }>`
      select count(*) as n from stream_catalog c join streams s using (stream_id)
      where c.category = 'transaction' and c.version = s.version`.execute(db.db);
    assert.equal(Number(catalog.rows[0]?.n), 900);
    const events = await sql<{
      n: string;
    }>`select count(*) as n from events where type like 'Transaction.%'`.execute(db.db);
    const audited = await sql<{ n: string; unattributed: string }>`
      select count(*) as n, count(*) filter (where tenant_id is null) as unattributed
      from audit_log where action like 'transaction.%'`.execute(db.db);
    assert.equal(audited.rows[0]?.n, events.rows[0]?.n);
    assert.equal(Number(audited.rows[0]?.unattributed), 0);
    const requests = await sql<{ n: string }>`select count(*) as n from transaction_requests`.execute(db.db);
    assert.equal(Number(requests.rows[0]?.n), 900);

    // The log is what the deciders emit: folding every stream gives exactly the read model.
    const replay = await run(['audit', 'replay', '--all'], e);
    assert.equal(replay.code, 0, replay.out);
    assert.match(replay.out, /^900 transaction streams checked, 0 differences$/m);

    // A rebuild of the async read models in one batched pass reproduces them exactly.
    const digest = async () =>
      (
        await sql<{ summary: string; audit: string; catalog: string }>`
          select (select md5(string_agg(s::text, ',' order by transaction_id)) from summary_transactions s) as summary,
            (select md5(string_agg(a::text, ',' order by id)) from audit_log a) as audit,
            (select md5(string_agg(c::text, ',' order by stream_id)) from stream_catalog c) as catalog`.execute(
          db.db,
        )
      ).rows[0];
    const before = await digest();
    const rebuilt = await run(['rebuild', '--all'], e);
    assert.equal(rebuilt.code, 0, rebuilt.out);
    assert.deepEqual(await digest(), before);

    const usage = await run(['dev', 'seed', '--tenants', '3'], e);
    assert.equal(usage.code, 2, usage.out);
    const wrong = await run(['dev', 'nope'], e);
    assert.equal(wrong.code, 2, wrong.out);
  } finally {
    await db.drop();
  }
});
