import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { type TransactionCommand, transaction } from '../../src/aggregates/transaction.ts';
import { type CommandDeps, handleCommand } from '../../src/commands/command-handler.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { createEventRegistry } from '../../src/events/registry.ts';
import { newId } from '../../src/ids.ts';
import { asyncProjections, inlineProjections } from '../../src/projections/index.ts';
import { ProjectionRunner } from '../../src/projections/projection-runner.ts';
import { summaryProjection } from '../../src/projections/summary.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { type ChargeKind, commandOf, reserveCommand } from '../support/transactions.ts';

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

describe('summary read model (SPEC 4.14; DESIGN.md "Avoid hot rows")', () => {
  let t: TestDatabase;
  let store: PostgresEventStore;
  let deps: CommandDeps;
  let runner: ProjectionRunner;
  let clock = new Date('2026-03-01T12:00:00.000Z').getTime();

  before(async () => {
    t = await createTestDatabase();
    store = new PostgresEventStore(t.db, inlineProjections);
    deps = { store, registry: createEventRegistry(), now: () => new Date(clock) };
    runner = new ProjectionRunner(t.db, store, [summaryProjection]);
  });
  after(() => t.drop());

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
    await runner.rebuild(summaryProjection);
    assert.deepEqual(await table(t), rows);
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
    await runner.rebuild(summaryProjection);
    assert.deepEqual(await table(t), before);
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
  });
});
