import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { DomainError } from '../../src/aggregates/decider.ts';
import { type HandleOptions, handleCommand } from '../../src/commands/command-handler.ts';
import { ImmutableFacts } from '../../src/commands/immutable-facts.ts';
import { WrongExpectedVersionError } from '../../src/events/event-store.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { type CounterState, counter, counterRegistry } from '../support/counter-decider.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';

describe('command handler: read, fold, decide, append with the expected version', () => {
  let t: TestDatabase;
  let store: PostgresEventStore;
  const metadata = { actor: 'system:test', request_id: 'req_test' };
  const deps = () => ({ store, registry: counterRegistry, now: () => new Date('2026-11-21T10:00:00Z') });

  beforeAll(async () => {
    t = await createTestDatabase();
    store = new PostgresEventStore(t.db);
  });
  afterAll(() => t.drop());

  test('appends the decided events with metadata and returns the new state', async () => {
    const r = await handleCommand(deps(), counter, 'counter-a', { kind: 'increment', by: 5 }, { metadata });
    assert.equal(r.version, 1);
    assert.deepEqual(r.state, { total: 5, closed: false });
    const [e] = await store.read('counter-a');
    assert.equal(e?.schemaVersion, 2);
    assert.deepEqual(e?.metadata, metadata);
  });

  test('a no-op decision appends nothing', async () => {
    const r = await handleCommand(deps(), counter, 'counter-a', { kind: 'increment', by: 0 }, { metadata });
    assert.equal(r.events.length, 0);
    assert.equal((await store.read('counter-a')).length, 1);
  });

  test('a refused command throws its domain error and appends nothing', async () => {
    await handleCommand(deps(), counter, 'counter-b', { kind: 'close' }, { metadata });
    await assert.rejects(
      handleCommand(deps(), counter, 'counter-b', { kind: 'increment', by: 1 }, { metadata }),
      (e: unknown) => e instanceof DomainError && e.code === 'conflict',
    );
    assert.equal((await store.read('counter-b')).length, 1);
  });

  test('old stored shapes are upcast before deciding', async () => {
    await store.append(
      'counter-legacy',
      [
        {
          id: crypto.randomUUID(),
          type: 'Counter.Incremented',
          schemaVersion: 1,
          data: { step: 10 },
          metadata,
        },
      ],
      'no_stream',
    );
    const r = await handleCommand(
      deps(),
      counter,
      'counter-legacy',
      { kind: 'increment', by: 1 },
      { metadata },
    );
    assert.equal(r.state.total, 11);
  });

  test('concurrent commands without retry: the losers get WrongExpectedVersionError', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        handleCommand(deps(), counter, 'counter-race', { kind: 'increment', by: 1 }, { metadata }),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled').length;
    assert.ok(won >= 1);
    for (const r of results)
      if (r.status === 'rejected') assert.ok(r.reason instanceof WrongExpectedVersionError);
    assert.equal((await store.read('counter-race')).length, won);
  });

  test('concurrent commands with retryOnConflict: every one lands exactly once', async () => {
    await Promise.all(
      Array.from({ length: 10 }, () =>
        handleCommand(
          deps(),
          counter,
          'counter-retry',
          { kind: 'increment', by: 1 },
          { metadata, retryOnConflict: true, maxAttempts: 20 },
        ),
      ),
    );
    const events = await store.read('counter-retry');
    assert.equal(events.length, 10);
    assert.deepEqual(
      events.map((e) => e.version),
      Array.from({ length: 10 }, (_, i) => i + 1),
    );
  });

  test('`from`: decides from the known state without reading; a stale one only costs a re-read', async () => {
    const increment = (by: number, options: Omit<HandleOptions<CounterState>, 'metadata'> = {}) =>
      handleCommand(deps(), counter, 'counter-from', { kind: 'increment', by }, { metadata, ...options });
    const first = await increment(2);
    const from = { state: first.state, version: first.version };
    const next = await increment(3, { from });
    assert.deepEqual([next.version, next.state.total], [2, 5]);
    // A stale `from` (version 1 while the stream is at 2): the append conflicts, the retry reads the stream.
    const retried = await increment(1, { from, retryOnConflict: true });
    assert.deepEqual([retried.version, retried.state.total], [3, 6]);
    await assert.rejects(increment(1, { from }), WrongExpectedVersionError);
    assert.equal((await store.read('counter-from')).length, 3);
  });
});

describe('ImmutableFacts: remembered per store, bounded, frozen', () => {
  test('keeps at most `limit` entries, least recently used out first; stores never share', () => {
    const facts = new ImmutableFacts<{ n: number }>(2);
    const a = {};
    const b = {};
    facts.set(a, 'x', { n: 1 });
    facts.set(a, 'y', { n: 2 });
    assert.equal(facts.get(a, 'x')?.n, 1); // x is now the most recent
    facts.set(a, 'z', { n: 3 });
    assert.equal(facts.get(a, 'y'), undefined);
    assert.equal(facts.get(a, 'x')?.n, 1);
    assert.equal(facts.get(b, 'x'), undefined);
    assert.ok(Object.isFrozen(facts.get(a, 'z')));
  });
});
