import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import {
  type Checkpoint,
  compareCheckpoints,
  type EventMetadata,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
  WrongExpectedVersionError,
} from '../../src/events/event-store.ts';

/**
 * The one contract every event-store adapter passes (DESIGN.md "One contract test suite"; issue 2 item 4).
 * Streams are named with a fresh prefix, so the suite also runs against a shared EventStoreDB server.
 */
export interface ContractTarget {
  store: EventStore;
  close(): Promise<void>;
}

const meta: EventMetadata = { actor: 'system:contract-test' };

function event(type: string, data: unknown = {}, metadata: EventMetadata = meta): NewEvent {
  return { id: randomUUID(), type, data, metadata };
}

/**
 * Reads everything after `from` up to the head (a catch-up subscriber's loop). An empty read before the head
 * means an older transaction elsewhere still holds the snapshot's xmin back: wait and read again.
 */
async function drain(store: EventStore, from: Checkpoint, limit = 500): Promise<RecordedEvent[]> {
  const head = await store.headCheckpoint();
  const out: RecordedEvent[] = [];
  let cp = from;
  while (compareCheckpoints(cp, head) < 0) {
    const batch = await store.readAll(cp, limit);
    if (batch.length === 0) await new Promise((r) => setTimeout(r, 5));
    out.push(...batch);
    cp = batch.at(-1)?.checkpoint ?? cp;
  }
  return out;
}

export function runEventStoreContract(
  label: string,
  open: () => Promise<ContractTarget>,
  opts: { skip?: string; teardown?: () => Promise<void> } = {},
) {
  if (opts.skip) {
    const reason = opts.skip;
    // Reported as a skipped test with its reason in the runner's summary, never as a silent pass.
    test(`event store contract: ${label}`, (ctx) => ctx.skip(reason));
    return;
  }
  describe(`event store contract: ${label}`, () => {
    let target: ContractTarget;
    let store: EventStore;
    const prefix = `contract${randomUUID().replaceAll('-', '')}`;
    const name = (s: string) => `${prefix}-${s}`;

    beforeAll(async () => {
      target = await open();
      store = target.store;
    });
    afterAll(async () => {
      await target?.close();
      await opts.teardown?.();
    });

    test('(a) 50 concurrent appends with one expected version: exactly one wins, no holes', async () => {
      const stream = name('race');
      await store.append(stream, [event('Opened')], 'no_stream');
      const results = await Promise.allSettled(
        Array.from({ length: 50 }, (_, i) => store.append(stream, [event('Raced', { i })], 1)),
      );
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected');
      assert.equal(won.length, 1);
      assert.equal(lost.length, 49);
      for (const r of lost)
        assert.ok((r as PromiseRejectedResult).reason instanceof WrongExpectedVersionError);
      const events = await store.read(stream);
      assert.deepEqual(
        events.map((e) => e.version),
        [1, 2],
      );
    });

    test('(b) 8 writers x 2,000 events on distinct streams while a catch-up reader runs: each seen once, in order', async () => {
      const writers = 8;
      const perWriter = 2000;
      // Nothing writes to this store while the head is taken, so reading after it misses nothing.
      const start = await store.headCheckpoint();
      const seen: RecordedEvent[] = [];
      // After the writers finish, the reader goes on until it reaches the head: a read can come back empty
      // while an older transaction elsewhere still holds the snapshot's xmin back.
      let until: Checkpoint | undefined;
      const reader = (async () => {
        let cp = start;
        for (;;) {
          const batch = await store.readAll(cp, 300);
          if (batch.length === 0) {
            if (until && compareCheckpoints(cp, until) >= 0) return;
            await new Promise((r) => setTimeout(r, 2));
            continue;
          }
          for (const e of batch) {
            assert.ok(
              compareCheckpoints(e.checkpoint, cp) > 0,
              `checkpoints strictly increase: ${JSON.stringify([cp, e.checkpoint])}`,
            );
            cp = e.checkpoint;
          }
          seen.push(...batch.filter((e) => e.stream.startsWith(name('writer'))));
        }
      })();
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          const stream = name(`writer${w}`);
          for (let i = 0; i < perWriter; i++) {
            await store.append(stream, [event('Written', { w, i })], i === 0 ? 'no_stream' : i);
          }
        }),
      );
      until = await store.headCheckpoint();
      await reader;
      assert.equal(seen.length, writers * perWriter);
      assert.equal(new Set(seen.map((e) => e.id)).size, writers * perWriter, 'no event seen twice');
      const lastVersion = new Map<string, number>();
      for (const e of seen) {
        assert.equal(e.version, (lastVersion.get(e.stream) ?? 0) + 1, `${e.stream} read in version order`);
        lastVersion.set(e.stream, e.version);
      }
    });

    test('(c) no_stream fails on an existing stream; any always appends; exact version checked', async () => {
      const stream = name('expectations');
      assert.deepEqual((await store.append(stream, [event('A')], 'no_stream')).version, 1);
      await assert.rejects(store.append(stream, [event('B')], 'no_stream'), WrongExpectedVersionError);
      assert.equal((await store.append(stream, [event('B')], 'any')).version, 2);
      assert.equal((await store.append(name('fresh-any'), [event('A')], 'any')).version, 1);
      await assert.rejects(store.append(stream, [event('C')], 1), WrongExpectedVersionError);
      await assert.rejects(store.append(stream, [event('C')], 5), WrongExpectedVersionError);
      await assert.rejects(store.append(name('missing'), [event('C')], 3), WrongExpectedVersionError);
      assert.equal((await store.append(stream, [event('C'), event('D')], 2)).version, 4);
      assert.deepEqual(
        (await store.read(stream)).map((e) => e.type),
        ['A', 'B', 'C', 'D'],
      );
      assert.deepEqual(
        (await store.read(stream, 3)).map((e) => e.type),
        ['C', 'D'],
      );
      assert.deepEqual(await store.read(name('never-written')), []);
    });

    test('(c) retrying the same batch with the same event ids is idempotent', async () => {
      const stream = name('retry');
      const batch = [event('A'), event('B')];
      const first = await store.append(stream, batch, 'no_stream');
      const again = await store.append(stream, batch, 'no_stream');
      assert.deepEqual(again, first);
      assert.equal((await store.read(stream)).length, 2);
    });

    test('(d) a 10,000-event stream reads back whole', async () => {
      const stream = name('large');
      const total = 10_000;
      for (let v = 0; v < total; v += 500) {
        const batch = Array.from({ length: 500 }, (_, i) => event('Bulk', { n: v + i }));
        await store.append(stream, batch, v === 0 ? 'no_stream' : v);
      }
      const events = await store.read(stream);
      assert.equal(events.length, total);
      events.forEach((e, i) => {
        assert.equal(e.version, i + 1);
        assert.deepEqual(e.data, { n: i });
      });
    });

    test('(e) data, metadata and type round-trip', async () => {
      const stream = name('roundtrip');
      const metadata: EventMetadata = {
        request_id: 'req_123',
        actor: 'api_key:key_abc',
        tenant_id: 'ten_1',
        livemode: false,
        correlation_id: randomUUID(),
        causation_id: randomUUID(),
      };
      const data = { amount: 1250, text: 'ação €', nested: { list: [1, 'two', null, true] } };
      const sent: NewEvent = { ...event('Thing.Happened', data, metadata), schemaVersion: 2 };
      const from = await store.headCheckpoint();
      const { version, position } = await store.append(stream, [sent], 'no_stream');
      const [got] = await store.read(stream);
      assert.ok(got);
      assert.equal(got.id, sent.id);
      assert.equal(got.type, 'Thing.Happened');
      assert.equal(got.schemaVersion, 2);
      assert.equal(got.version, version);
      assert.equal(got.position, position);
      assert.deepEqual(got.data, data);
      assert.deepEqual(got.metadata, metadata);
      assert.ok(got.recordedAt instanceof Date && !Number.isNaN(got.recordedAt.getTime()));
      const viaAll = (await drain(store, from)).find((e) => e.id === sent.id);
      assert.deepEqual(viaAll?.metadata, metadata);
      assert.deepEqual(viaAll?.data, data);
    });
  });
}
