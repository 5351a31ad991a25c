import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { DomainError } from '../../src/aggregates/decider.ts';
import { type ClaimInput, claimIdempotencyKey, readClaim } from '../../src/commands/idempotency.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { inlineProjections } from '../../src/projections/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';

const metadata = { actor: 'user:usr_admin', request_id: 'req_test' };

describe('idempotency reservation streams on PostgreSQL (SPEC 4, DESIGN.md)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;
  beforeAll(async () => {
    db = await createTestDatabase();
    store = new PostgresEventStore(db.db, inlineProjections);
  });
  afterAll(() => db.drop());

  const input = (over: Partial<ClaimInput> = {}): ClaimInput => ({
    scope: 'ten_a',
    key: 'order-1',
    method: 'POST',
    route: '/v1/pix',
    body: { amount: 100, reference: 'r1' },
    resourceId: 'txn_1',
    payload: { amount: 100 },
    ...over,
  });

  test('SPEC 4: the first request claims; the same key and body (reordered) finds the first claim and its resource id', async () => {
    const first = await claimIdempotencyKey({ store }, input(), metadata);
    assert.equal(first.first, true);
    const again = await claimIdempotencyKey(
      { store },
      input({ body: { reference: 'r1', amount: 100 }, resourceId: 'txn_2' }),
      metadata,
    );
    assert.equal(again.first, false);
    assert.equal(again.claim.resource_id, 'txn_1');
    assert.deepEqual(again.claim.payload, { amount: 100 });
    assert.equal((await readClaim({ store }, 'ten_a', 'order-1'))?.resource_id, 'txn_1');
  });

  test('SPEC 4, 7: another body, or another route under the same key, is 409 idempotency_conflict', async () => {
    await claimIdempotencyKey({ store }, input({ key: 'order-2' }), metadata);
    const conflict = (e: unknown) => e instanceof DomainError && e.code === 'idempotency_conflict';
    await assert.rejects(
      claimIdempotencyKey(
        { store },
        input({ key: 'order-2', body: { amount: 101, reference: 'r1' } }),
        metadata,
      ),
      conflict,
    );
    await assert.rejects(
      claimIdempotencyKey({ store }, input({ key: 'order-2', route: '/v1/boleto' }), metadata),
      conflict,
    );
  });

  test('SPEC 4: the scope keeps tenants apart: the same key in another scope is a new claim', async () => {
    await claimIdempotencyKey({ store }, input({ key: 'order-3' }), metadata);
    const other = await claimIdempotencyKey({ store }, input({ key: 'order-3', scope: 'ten_b' }), metadata);
    assert.equal(other.first, true);
  });

  test('DESIGN reservation streams: 20 concurrent requests with one key yield exactly one first claim', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        claimIdempotencyKey({ store }, input({ key: 'race', resourceId: `txn_r${i}` }), metadata),
      ),
    );
    const firsts = results.filter((r) => r.first);
    assert.equal(firsts.length, 1);
    const winner = firsts[0]?.claim.resource_id;
    assert.ok(results.every((r) => r.claim.resource_id === winner));
  });
});
