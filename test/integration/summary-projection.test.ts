import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { DomainError, fold } from '../../src/aggregates/decider.ts';
import {
  type TransactionCommand,
  type TransactionEvent,
  transaction,
} from '../../src/aggregates/transaction.ts';
import { type CommandDeps, handleCommand } from '../../src/commands/command-handler.ts';
import { asyncProjections, createEventRegistry, inlineProjections } from '../../src/commands/index.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { newId } from '../../src/ids.ts';
import { ProjectionRunner } from '../../src/projections/projection-runner.ts';
import { summaryProjection } from '../../src/projections/summary.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import {
  type ChargeKind,
  chargeKind,
  commandOf,
  commandOfStep,
  randomStep,
  reserveCommand,
} from '../support/transactions.ts';

const metadata = { actor: 'system:test', request_id: 'req_summary' };

/** A reservation of `amount` centavos (the snapshot carries the same amount, as the decider requires). */
function reserve(id: string, kind: ChargeKind, amount: number) {
  const base = reserveCommand(id, kind);
  return { ...base, amount, request: { ...base.request, amount } };
}

async function table(t: TestDatabase) {
  const { rows } = await sql<Record<string, unknown>>`
    select transaction_id, tenant_id, livemode, simulated, method, amount::text as amount, status,
           created_at, created_day::text as created_day, paid_at, paid_day::text as paid_day, updated_at,
           sequence::text as sequence
    from summary_transactions order by transaction_id`.execute(t.db);
  return rows;
}

/** `summary_daily` as stored, without groups every charge has left (all four sums back at zero). */
async function rollup(t: TestDatabase) {
  const { rows } = await sql<Record<string, unknown>>`
    select tenant_id, livemode, created_day::text as day, status, created_count::int as n,
           created_amount::text as amount, paid_count::int as paid_n, paid_amount::text as paid_amount
    from summary_daily
    where (created_count, created_amount, paid_count, paid_amount) <> (0, 0, 0, 0)
    order by 1, 2, 3, 4`.execute(t.db);
  return rows;
}

/** The same groups computed from the rows (the oracle the rollup must always equal, migration 0011). */
async function rollupOfRows(t: TestDatabase) {
  const { rows } = await sql<Record<string, unknown>>`
    select tenant_id, livemode, created_day::text as day, status, count(*)::int as n,
           sum(amount)::text as amount, count(paid_at)::int as paid_n,
           coalesce(sum(amount) filter (where paid_at is not null), 0)::text as paid_amount
    from summary_transactions group by 1, 2, 3, 4 order by 1, 2, 3, 4`.execute(t.db);
  return rows;
}

describe('summary read model (SPEC 4.14; DESIGN.md "Avoid hot rows")', () => {
  let t: TestDatabase;
  let store: PostgresEventStore;
  let deps: CommandDeps;
  let runner: ProjectionRunner;
  let clock = new Date('2026-03-01T12:00:00.000Z').getTime();

  beforeAll(async () => {
    t = await createTestDatabase();
    store = new PostgresEventStore(t.db, inlineProjections);
    deps = { store, registry: createEventRegistry(), now: () => new Date(clock) };
    runner = new ProjectionRunner(t.db, store, [summaryProjection]);
  });
  afterAll(() => t.drop());

  /** Every command here must be accepted: a refusal fails the test. */
  async function run(id: string, command: TransactionCommand) {
    return handleCommand(deps, transaction, `transaction-${id}`, command, { metadata });
  }

  test('is registered as async, never inline', () => {
    assert.ok(asyncProjections.includes(summaryProjection));
    assert.ok(!inlineProjections.includes(summaryProjection));
  });

  test('one row per charge, updated per event; rebuild reproduces it exactly', async () => {
    // Reserved at 02:30 UTC on 2 March: still 1 March in America/Sao_Paulo (UTC-3).
    clock = new Date('2026-03-02T02:30:00.000Z').getTime();
    const paid = newId('txn');
    await run(paid, reserveCommand(paid, 'pix_simulated'));
    // Nothing is visible before the async projection catches up.
    assert.equal((await table(t)).length, 0);
    clock = new Date('2026-03-02T03:30:00.000Z').getTime();
    await run(
      paid,
      commandOf('record_issued', {
        transactionId: paid,
        chargeKind: 'pix_simulated',
        observed: 'processing',
      }),
    );
    await run(paid, { kind: 'simulate_paid' });

    clock = new Date('2026-03-02T04:00:00.000Z').getTime();
    const failed = newId('txn');
    await run(failed, reserve(failed, 'boleto_live', 999));
    await run(
      failed,
      commandOf('record_refused', {
        transactionId: failed,
        chargeKind: 'boleto_live',
        observed: 'processing',
      }),
    );

    const test_ = newId('txn');
    await run(test_, reserveCommand(test_, 'pix_test'));

    await runner.catchUp(summaryProjection);
    const rows = await table(t);
    const byId = new Map(rows.map((r) => [r.transaction_id, r]));
    const p = byId.get(paid);
    assert.ok(p);
    assert.equal(p.status, 'paid');
    assert.equal(p.amount, '1250');
    assert.equal(p.method, 'pix');
    assert.equal(p.livemode, true);
    assert.equal(p.simulated, true);
    assert.equal(p.tenant_id, 'ten_acme');
    assert.deepEqual(p.created_at, new Date('2026-03-02T02:30:00.000Z'));
    assert.equal(p.created_day, '2026-03-01');
    assert.deepEqual(p.paid_at, new Date('2026-03-02T03:30:00.000Z'));
    assert.equal(p.paid_day, '2026-03-02');
    assert.equal(p.sequence, '3');
    const f = byId.get(failed);
    assert.ok(f);
    assert.equal(f.status, 'failed');
    assert.equal(f.amount, '999');
    assert.equal(f.paid_at, null);
    assert.equal(f.created_day, '2026-03-02');
    assert.equal(byId.get(test_)?.livemode, false);

    // Replaying the log from scratch reproduces the table byte for byte (times come from the events).
    assert.deepEqual(await rollup(t), await rollupOfRows(t));
    await runner.rebuild(summaryProjection);
    assert.deepEqual(await table(t), rows);
    assert.deepEqual(await rollup(t), await rollupOfRows(t));
  });

  test('later events move the status; a repeated catch-up changes nothing', async () => {
    clock = new Date('2026-03-03T15:00:00.000Z').getTime();
    const id = newId('txn');
    await run(id, reserveCommand(id, 'pix_simulated'));
    await run(
      id,
      commandOf('record_issued', { transactionId: id, chargeKind: 'pix_simulated', observed: 'processing' }),
    );
    await runner.catchUp(summaryProjection);
    const pending = (await table(t)).find((r) => r.transaction_id === id);
    assert.equal(pending?.status, 'pending');
    await run(id, { kind: 'simulate_expired' });
    await runner.catchUp(summaryProjection);
    await runner.catchUp(summaryProjection);
    const expired = (await table(t)).find((r) => r.transaction_id === id);
    assert.equal(expired?.status, 'expired');
    assert.equal(expired?.paid_at, null);
    const before = await table(t);
    assert.deepEqual(await rollup(t), await rollupOfRows(t));
    await runner.rebuild(summaryProjection);
    assert.deepEqual(await table(t), before);
    assert.deepEqual(await rollup(t), await rollupOfRows(t));
  });

  test('property: the daily rollup always equals the rows it sums, event by event or in batches', async () => {
    const tolerant = async (id: string, command: TransactionCommand) => {
      try {
        await run(id, command);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
      }
    };
    const charge = fc.record({
      kind: chargeKind,
      amount: fc.integer({ min: 1, max: 5_000_000 }),
      steps: fc.array(randomStep, { maxLength: 8 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(charge, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 9 }),
        async (charges, batchSize) => {
          for (const c of charges) {
            const id = newId('txn');
            // Reservations spread over a few Sao Paulo days, including around midnight (03:00 UTC).
            clock += 5 * 3_600_000;
            await tolerant(id, reserve(id, c.kind, c.amount));
            for (const step of c.steps) {
              clock += step.advanceSeconds * 1000;
              const current = fold(
                transaction,
                (await store.read(`transaction-${id}`)).map(
                  (r) => deps.registry.decode(r) as TransactionEvent,
                ),
              ).status;
              await tolerant(id, commandOfStep(step, id, c.kind, current));
            }
          }
          // Catch-up in runs of `batchSize` events: 1 applies each event alone (`handle`), more uses `handleBatch`.
          await runner.catchUpTogether([summaryProjection], undefined, batchSize);
          assert.deepEqual(await rollup(t), await rollupOfRows(t));
        },
      ),
      { numRuns: 20 },
    );
    const expected = await rollup(t);
    assert.ok(expected.length > 5);
    await runner.rebuildAll([summaryProjection], undefined, 50);
    assert.deepEqual(await rollup(t), expected);
  });

  test('issue 14 B4: rebuildAll through COPY, indexes dropped and built back, leaves the same rows, rollup and indexes', async () => {
    const indexes = async () =>
      (
        await sql<{ indexdef: string }>`
          select indexdef from pg_indexes where tablename = 'summary_transactions' order by indexname`.execute(
          t.db,
        )
      ).rows;
    const rows = await table(t);
    const daily = await rollup(t);
    const made = await indexes();
    assert.ok(rows.length > 5);
    assert.equal(made.length, 3);
    const copying = new ProjectionRunner(t.db, store, [summaryProjection], { copyFromStdin: true });
    // Batches of 2: most charges' later events reach the table as updates of rows an earlier COPY wrote.
    for (const batchSize of [2, 5000]) {
      await copying.rebuildAll([summaryProjection], undefined, batchSize);
      assert.deepEqual(await table(t), rows);
      assert.deepEqual(await rollup(t), daily);
      assert.deepEqual(await indexes(), made);
    }
  });

  test('indexes serve the summary window per tenant and globally', async () => {
    const { rows } = await sql<{ indexname: string }>`
      select indexname from pg_indexes where tablename = 'summary_transactions' order by indexname`.execute(
      t.db,
    );
    assert.deepEqual(
      rows.map((r) => r.indexname),
      ['summary_transactions_created', 'summary_transactions_pkey', 'summary_transactions_tenant'],
    );
    const daily = await sql<{ indexname: string }>`
      select indexname from pg_indexes where tablename = 'summary_daily' order by indexname`.execute(t.db);
    assert.deepEqual(
      daily.rows.map((r) => r.indexname),
      ['summary_daily_day', 'summary_daily_pkey'],
    );
  });
});
