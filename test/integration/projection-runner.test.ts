import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { type NewEvent, START } from '../../src/events/event-store.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import type { Projection } from '../../src/events/projection.ts';
import { metrics } from '../../src/metrics.ts';
import { ProjectionRunner, readCheckpoint } from '../../src/projections/projection-runner.ts';
import { streamCatalog } from '../../src/projections/stream-catalog.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { createTotalsTable, diffTotals, totalsProjection } from '../support/totals-projection.ts';

const metadata = { actor: 'system:test' };
const inc = (by: number): NewEvent => ({
  id: randomUUID(),
  type: 'Counter.Incremented',
  data: { by },
  metadata,
});

async function appendMany(store: PostgresEventStore, streams: number, perStream: number, prefix: string) {
  for (let s = 0; s < streams; s++) {
    await store.append(
      `${prefix}-${s}`,
      Array.from({ length: perStream }, (_, i) => inc(i + s)),
      'any',
    );
  }
}

describe('projection runner (DESIGN.md "Projections")', () => {
  let t: TestDatabase;

  beforeAll(async () => {
    t = await createTestDatabase();
    await createTotalsTable(t.db);
  });
  afterAll(() => t.drop());

  test('after: never ahead of the read model it reads; reachHead brings a set to the head (issue 12)', async () => {
    const store = new PostgresEventStore(t.db);
    await appendMany(store, 2, 3, `after-${randomUUID()}`);
    const noop = { eventTypes: ['Counter.Incremented'], async handle() {}, async reset() {} };
    const dep: Projection = { ...noop, name: `dep-${randomUUID()}` };
    const applied: string[] = [];
    const dependent: Projection = {
      ...noop,
      name: `dependent-${randomUUID()}`,
      after: [dep.name],
      async handle(event) {
        applied.push(event.id);
      },
    };
    const runner = new ProjectionRunner(t.db, store, [dep, dependent], { batchSize: 4 });
    // The log is readable once no older transaction anywhere on the server is open (DESIGN.md: subscribers
    // stop at the snapshot's xmin); another test file's open transaction may hold it back for a moment.
    const { rows } = await sql<{ n: string }>`select count(*) as n from events`.execute(t.db);
    const written = Number(rows[0]?.n);
    while ((await store.readAll(START, written)).length < written) await delay(10);
    assert.equal(await runner.step(dependent), 0, 'its dependency has applied nothing yet');
    assert.deepEqual(await readCheckpoint(t.db, dependent.name), START);
    assert.equal(await runner.step(dep), 4);
    assert.ok((await runner.step(dependent)) > 0);
    assert.deepEqual(await readCheckpoint(t.db, dependent.name), await readCheckpoint(t.db, dep.name));
    assert.equal(await runner.step(dependent), 0, 'caught up with its dependency, not with the log');

    await runner.reachHead([dep, dependent]);
    const head = await store.headCheckpoint();
    assert.deepEqual(await readCheckpoint(t.db, dep.name), head);
    assert.deepEqual(await readCheckpoint(t.db, dependent.name), head);
    assert.equal(new Set(applied).size, applied.length, 'each event applied once');
  });

  test('inline: the read model changes in the append transaction; a failing projection appends nothing', async () => {
    await sql`truncate test_totals`.execute(t.db);
    const store = new PostgresEventStore(t.db, [totalsProjection()]);
    await store.append('inline-1', [inc(5), inc(7)], 'no_stream');
    const row = await sql<{
      total: string;
    }>`select total from test_totals where stream_id = 'inline-1'`.execute(t.db);
    assert.equal(Number(row.rows[0]?.total), 12);

    const failing = new PostgresEventStore(t.db, [
      {
        ...totalsProjection(),
        async handle() {
          throw new Error('read model refused');
        },
      },
    ]);
    await assert.rejects(failing.append('inline-2', [inc(1)], 'no_stream'), /read model refused/);
    assert.deepEqual(await store.read('inline-2'), []);
    // The failed append did not claim the stream either.
    await store.append('inline-2', [inc(1)], 'no_stream');
  });

  test('async: catch-up applies every event once and stores the checkpoint with the change', async () => {
    await sql`truncate test_totals`.execute(t.db);
    const store = new PostgresEventStore(t.db);
    const projection = totalsProjection('async_totals');
    await appendMany(store, 20, 30, 'async');
    const runner = new ProjectionRunner(t.db, store, [projection], { batchSize: 50 });
    await runner.rebuild(projection);
    assert.deepEqual(await diffTotals(t.db), []);
    const cp = await readCheckpoint(t.db, 'async_totals');
    assert.deepEqual(cp, (await store.readAll({ tx: 0, pos: 0 }, 1_000_000)).at(-1)?.checkpoint);
    assert.equal(await runner.step(projection), 0, 'caught up');
  });

  test('two instances stepping the same projection never apply a batch twice', async () => {
    const store = new PostgresEventStore(t.db);
    const projection = totalsProjection('contended_totals');
    const a = new ProjectionRunner(t.db, store, [projection], { batchSize: 7 });
    const b = new ProjectionRunner(t.db, store, [projection], { batchSize: 11 });
    await a.rebuild(projection);
    await appendMany(store, 10, 40, 'contended');
    // Both race through the log; the checkpoint check inside the locked transaction decides each batch.
    await Promise.all([a.catchUp(projection), b.catchUp(projection), a.catchUp(projection)]);
    assert.deepEqual(await diffTotals(t.db), []);
  });

  test('rebuild empties the read model and replays the whole log', async () => {
    const store = new PostgresEventStore(t.db);
    const projection = totalsProjection('rebuilt_totals');
    const runner = new ProjectionRunner(t.db, store, [projection]);
    await runner.catchUp(projection);
    await sql`update test_totals set total = total + 1000`.execute(t.db);
    assert.notDeepEqual(await diffTotals(t.db), []);
    const n = await runner.rebuild(projection);
    assert.ok(n > 0);
    assert.deepEqual(await diffTotals(t.db), []);
  });

  test('a started runner wakes on an in-process append and exposes its lag as a gauge', async () => {
    const store = new PostgresEventStore(t.db);
    const projection = totalsProjection('live_totals');
    const runner = new ProjectionRunner(t.db, store, [projection], { idleMs: 60_000 });
    await runner.rebuild(projection);
    runner.start();
    try {
      await store.append('live-1', [inc(3)], 'any');
      const target = (await store.headCheckpoint()).pos;
      for (let i = 0; i < 2000 && (await readCheckpoint(t.db, 'live_totals')).pos < target; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.ok(
        (await readCheckpoint(t.db, 'live_totals')).pos >= target,
        'projected without waiting for the poll interval',
      );
    } finally {
      await runner.stop();
    }
    const exposition = await metrics.metrics();
    assert.match(exposition, /calebe_projection_lag_seconds\{projection="live_totals"\} 0/);
    assert.match(exposition, /calebe_projection_position\{projection="live_totals"\} \d+/);
  });

  test('an in-process append held unreadable by an older transaction is projected once it commits, not after the idle wait', async () => {
    const store = new PostgresEventStore(t.db);
    const projection = totalsProjection('held_totals');
    const runner = new ProjectionRunner(t.db, store, [projection], { idleMs: 60_000 });
    await runner.rebuild(projection);
    runner.start();
    let release: () => void = () => {};
    const released = new Promise<void>((r) => {
      release = r;
    });
    // An open transaction with an id holds the snapshot's xmin below the append, as on a busy cluster.
    let holding: () => void = () => {};
    const held = new Promise<void>((r) => {
      holding = r;
    });
    const blocker = t.db.transaction().execute(async (trx) => {
      await sql`select pg_current_xact_id()`.execute(trx);
      holding();
      await released;
    });
    try {
      await held;
      await store.append('held-1', [inc(5)], 'any');
      const target = (await store.headCheckpoint()).pos;
      await delay(2_500);
      assert.ok((await readCheckpoint(t.db, 'held_totals')).pos < target, 'not readable while held');
      release();
      await blocker;
      for (let i = 0; i < 500 && (await readCheckpoint(t.db, 'held_totals')).pos < target; i++)
        await delay(10);
      assert.ok((await readCheckpoint(t.db, 'held_totals')).pos >= target, 'projected well before idleMs');
    } finally {
      release();
      await blocker;
      await runner.stop();
    }
  });

  test('rebuildAll: projections apply the batches at their own pace; a bulk loader sees the whole log once, in order, and restore runs before it returns', async () => {
    const store = new PostgresEventStore(t.db);
    await appendMany(store, 7, 13, 'bulk');
    const totals = totalsProjection('bulk_totals');
    const loaded: string[] = [];
    let begun = 0;
    let restores = 0;
    const bulk: Projection = {
      ...totals,
      bulkLoad: {
        async begin() {
          begun++;
          return {
            async handleBatch(events, trx) {
              for (const e of events) {
                loaded.push(e.id);
                await totals.handle(e, trx);
              }
            },
          };
        },
        async restore() {
          restores++;
        },
      },
    };
    // A slow projection: the other one runs ahead of it (a bounded number of batches); both reach the head.
    const slowSeen: string[] = [];
    const slow: Projection = {
      name: 'slow_everything',
      eventTypes: [],
      handlesAll: true,
      async handle(e) {
        slowSeen.push(e.id);
      },
      async handleBatch(events) {
        await new Promise((r) => setTimeout(r, 15));
        slowSeen.push(...events.map((e) => e.id));
      },
      async reset() {
        slowSeen.length = 0;
      },
    };
    const runner = new ProjectionRunner(t.db, store, [bulk, slow]);
    let progressed = 0;
    const n = await runner.rebuildAll([bulk, slow], (k) => (progressed += k), 10);
    const log = await store.readAll(START, 1_000_000);
    assert.equal(n, log.length);
    assert.equal(progressed, n);
    assert.deepEqual(
      loaded,
      log.filter((e) => e.type === 'Counter.Incremented').map((e) => e.id),
    );
    assert.deepEqual(
      slowSeen,
      log.map((e) => e.id),
    );
    assert.deepEqual(await diffTotals(t.db), []);
    assert.equal(begun, 1);
    assert.equal(restores, 1);
    const head = log.at(-1)?.checkpoint;
    assert.deepEqual(await readCheckpoint(t.db, 'bulk_totals'), head);
    assert.deepEqual(await readCheckpoint(t.db, 'slow_everything'), head);
    // Catching up afterwards is the ordinary path: no loader, restore already done by this runner.
    await store.append('bulk-after', [inc(4)], 'any');
    await runner.catchUp(bulk);
    assert.equal(loaded.length, log.filter((e) => e.type === 'Counter.Incremented').length);
    assert.equal(restores, 1);
    assert.deepEqual(await diffTotals(t.db), []);
    // A fresh runner (a restarted process) restores before its first batch, even with nothing to apply.
    await new ProjectionRunner(t.db, store, [bulk]).catchUp(bulk);
    assert.equal(restores, 2);
  });

  test('stream_catalog lists every stream with its category, version and last event type', async () => {
    const store = new PostgresEventStore(t.db);
    await store.append('transaction-txn_1', [inc(1), { ...inc(2), type: 'Other.Thing' }], 'any');
    const runner = new ProjectionRunner(t.db, store, [streamCatalog]);
    await runner.rebuild(streamCatalog);
    const { rows: expected } = await sql<{
      stream_id: string;
      version: string;
    }>`select stream_id, version from streams order by stream_id`.execute(t.db);
    const rows = await t.db.selectFrom('stream_catalog').selectAll().orderBy('stream_id').execute();
    assert.deepEqual(
      rows.map((r) => [r.stream_id, Number(r.version)]),
      expected.map((r) => [r.stream_id, Number(r.version)]),
    );
    const txn = rows.find((r) => r.stream_id === 'transaction-txn_1');
    assert.equal(txn?.category, 'transaction');
    assert.equal(txn?.last_type, 'Other.Thing');

    // issue 14 B4: the rebuild's bulk load (new streams through COPY, the category index built at the end)
    // leaves the same rows and indexes, whether a stream's events share a batch or not.
    const indexes = async () =>
      (
        await sql<{ indexdef: string }>`
          select indexdef from pg_indexes where tablename = 'stream_catalog' order by indexname`.execute(t.db)
      ).rows;
    const made = await indexes();
    assert.equal(made.length, 2);
    const copying = new ProjectionRunner(t.db, store, [streamCatalog], { copyFromStdin: true });
    for (const batchSize of [1, 5000]) {
      await copying.rebuildAll([streamCatalog], undefined, batchSize);
      assert.deepEqual(
        await t.db.selectFrom('stream_catalog').selectAll().orderBy('stream_id').execute(),
        rows,
      );
      assert.deepEqual(await indexes(), made);
    }
  });
});
