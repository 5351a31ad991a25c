import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import {
  type EventMetadata,
  type EventStore,
  type NewEvent,
  WrongExpectedVersionError,
} from '../../src/events/event-store.ts';
import type { ContractTarget } from './event-store-contract.ts';

const meta: EventMetadata = { actor: 'system:append-many-test' };

function event(type: string, data: unknown = {}): NewEvent {
  return { id: randomUUID(), type, data, metadata: meta };
}

/**
 * `appendMany` (issue 14; SPEC 3.1: an idempotency claim and the reservation commit together): several
 * streams in one transaction, all or nothing, with the `unlessExists` guard. PostgreSQL adapters only
 * (EventStoreDB has no multi-stream transaction and leaves the method out).
 */
export function runAppendManyContract(label: string, open: () => Promise<ContractTarget>) {
  describe(`appendMany: ${label}`, () => {
    let target: ContractTarget;
    let store: EventStore;
    const prefix = `many${randomUUID().replaceAll('-', '')}`;
    const name = (s: string) => `${prefix}-${s}`;
    const appendMany = (...args: Parameters<NonNullable<EventStore['appendMany']>>) => {
      assert.ok(store.appendMany, 'this adapter has appendMany');
      return store.appendMany(...args);
    };

    beforeAll(async () => {
      target = await open();
      store = target.store;
    });
    afterAll(async () => target?.close());

    test('two new streams commit together; each result has its version, position and time', async () => {
      let woken = 0;
      const off = store.onAppended(() => woken++);
      const [a, b] = await appendMany([
        { stream: name('claim'), events: [event('Claimed')], expected: 'no_stream' },
        { stream: name('res'), events: [event('Reserved'), event('Noted')], expected: 'no_stream' },
      ]);
      off();
      assert.equal(a?.version, 1);
      assert.equal(b?.version, 2);
      assert.ok(a && b && b.position > a.position);
      assert.ok(b?.recordedAt instanceof Date);
      // One transaction: one time for both streams.
      assert.equal(a?.recordedAt?.getTime(), b?.recordedAt?.getTime());
      assert.deepEqual(
        (await store.read(name('res'))).map((e) => [e.type, e.recordedAt.getTime()]),
        [
          ['Reserved', b?.recordedAt?.getTime()],
          ['Noted', b?.recordedAt?.getTime()],
        ],
      );
      assert.equal(woken, 1);
    });

    test('a refused stream refuses the whole call: nothing of the others is written', async () => {
      await store.append(name('taken'), [event('First')], 'no_stream');
      await assert.rejects(
        appendMany([
          { stream: name('free'), events: [event('A')], expected: 'no_stream' },
          { stream: name('taken'), events: [event('B')], expected: 'no_stream' },
        ]),
        (e) => e instanceof WrongExpectedVersionError && e.stream === name('taken') && e.actual === 1,
      );
      assert.deepEqual(await store.read(name('free')), []);
      assert.equal((await store.read(name('taken'))).length, 1);
    });

    test('unlessExists: refused while the guard stream exists, appended when it does not', async () => {
      await store.append(name('legacy'), [event('Old')], 'no_stream');
      await assert.rejects(
        appendMany([
          {
            stream: name('guarded'),
            events: [event('A')],
            expected: 'no_stream',
            unlessExists: [name('legacy')],
          },
          { stream: name('other'), events: [event('B')], expected: 'no_stream' },
        ]),
        (e) =>
          e instanceof WrongExpectedVersionError && e.stream === name('guarded') && e.actual === 'no_stream',
      );
      assert.deepEqual(await store.read(name('guarded')), []);
      assert.deepEqual(await store.read(name('other')), []);
      const [r] = await appendMany([
        {
          stream: name('guarded'),
          events: [event('A')],
          expected: 'no_stream',
          unlessExists: [name('never-written')],
        },
      ]);
      assert.equal(r?.version, 1);
    });
  });
}
