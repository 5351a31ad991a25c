import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { formatDifference, replayTransactions } from '../../src/commands/audit/replay/handler.ts';
import { createEventRegistry, inlineProjections } from '../../src/commands/index.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { newId } from '../../src/ids.ts';
import { ProjectionRunner } from '../../src/projections/projection-runner.ts';
import { streamCatalog } from '../../src/projections/stream-catalog.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { populateTransactions } from '../support/transaction-history.ts';

describe('audit replay: the fold of every transaction stream equals the read model (issue 5 item 10)', () => {
  let t: TestDatabase;
  let store: PostgresEventStore;
  let runner: ProjectionRunner;
  const registry = createEventRegistry();
  let ids: string[] = [];

  const ctx = () => ({ db: t.db, store, events: registry });
  async function replayAll() {
    await runner.catchUp(streamCatalog);
    return replayTransactions(ctx());
  }

  beforeAll(async () => {
    t = await createTestDatabase();
    store = new PostgresEventStore(t.db, inlineProjections);
    runner = new ProjectionRunner(t.db, store, [streamCatalog]);
    ids = await populateTransactions({ store, registry }, { count: 60, seed: 20261121 });
  });
  afterAll(() => t.drop());

  test('"after the full suite\'s data": a realistic mix of random command histories has 0 differences', async () => {
    const statuses = await t.db.selectFrom('transactions').select('status').distinct().execute();
    assert.ok(statuses.length >= 4, `the histories reached several states: ${JSON.stringify(statuses)}`);
    const { rows } = await sql<{ n: string }>`
      select count(*) as n from events where stream_id like 'transaction-%'`.execute(t.db);
    assert.ok(Number(rows[0]?.n) > ids.length, 'streams hold more than their reservations');
    const report = await replayAll();
    assert.equal(report.checked, ids.length);
    assert.deepEqual(report.differences, []);
  });

  test('one transaction: --transaction checks only that stream; an unknown id checks nothing', async () => {
    const [id] = ids;
    assert.ok(id);
    assert.deepEqual(await replayTransactions(ctx(), { transactionId: id }), { checked: 1, differences: [] });
    assert.deepEqual(await replayTransactions(ctx(), { transactionId: newId('txn') }), {
      checked: 0,
      differences: [],
    });
  });

  test('a tampered read-model field is reported with the folded and the stored value', async () => {
    const [id] = ids;
    assert.ok(id);
    const row = await t.db
      .selectFrom('transactions')
      .select(['status', 'amount'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    await t.db.updateTable('transactions').set({ amount: 999_999 }).where('id', '=', id).execute();
    const report = await replayAll();
    assert.deepEqual(report.differences, [
      { transaction_id: id, field: 'amount', expected: row.amount, actual: '999999' },
    ]);
    assert.equal(
      formatDifference(report.differences[0] ?? assert.fail()),
      `${id} amount: expected "${row.amount}", actual "999999"`,
    );
    const single = await replayTransactions(ctx(), { transactionId: id });
    assert.deepEqual(single.differences, report.differences);
    await t.db
      .updateTable('transactions')
      .set({ amount: Number(row.amount) })
      .where('id', '=', id)
      .execute();
    assert.deepEqual((await replayAll()).differences, []);
  });

  test('timestamps and nullable columns are compared too', async () => {
    const [, id] = ids;
    assert.ok(id);
    const row = await t.db
      .selectFrom('transactions')
      .select(['updated_at', 'refund_status'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    await t.db
      .updateTable('transactions')
      .set({ updated_at: new Date('2000-01-01T00:00:00.000Z'), refund_status: 'tampered' })
      .where('id', '=', id)
      .execute();
    const fields = (await replayAll()).differences.map((d) => [d.field, d.actual]);
    assert.deepEqual(fields.sort(), [
      ['refund_status', 'tampered'],
      ['updated_at', '2000-01-01T00:00:00.000Z'],
    ]);
    await t.db.updateTable('transactions').set(row).where('id', '=', id).execute();
    assert.deepEqual((await replayAll()).differences, []);
  });

  test('a deleted row and an orphan row (no stream) are each reported', async () => {
    const [, , id] = ids;
    assert.ok(id);
    const row = await t.db
      .selectFrom('transactions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    await t.db.deleteFrom('transactions').where('id', '=', id).execute();
    const orphan = newId('txn');
    await t.db
      .insertInto('transactions')
      .values({ ...row, id: orphan, amount: Number(row.amount), sequence: Number(row.sequence) })
      .execute();
    const report = await replayAll();
    assert.equal(report.checked, ids.length + 1);
    const expected = [
      { transaction_id: id, field: 'row', expected: 'present', actual: 'missing' },
      { transaction_id: orphan, field: 'row', expected: 'absent (no events)', actual: 'present' },
    ];
    assert.deepEqual(
      [...report.differences].sort((a, b) => a.transaction_id.localeCompare(b.transaction_id)),
      expected.sort((a, b) => a.transaction_id.localeCompare(b.transaction_id)),
    );
    await t.db.deleteFrom('transactions').where('id', '=', orphan).execute();
    await t.db
      .insertInto('transactions')
      .values({ ...row, amount: Number(row.amount), sequence: Number(row.sequence) })
      .execute();
    assert.deepEqual((await replayAll()).differences, []);
  });
});
