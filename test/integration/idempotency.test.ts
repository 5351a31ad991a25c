import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { DomainError } from '../../src/aggregates/decider.ts';
import {
  type ClaimInput,
  claimIdempotencyKey,
  idempotencyStream,
  readClaim,
  requestHash,
} from '../../src/commands/idempotency.ts';
import { inlineProjections } from '../../src/commands/index.ts';
import { sha256Hex } from '../../src/crypto/secrets.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
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

  /** A claim exactly as written before issue 12: mode-less stream id, no `livemode` field, mode in metadata. */
  async function legacyClaim(scope: string, key: string, livemode: boolean, resourceId: string) {
    const i = input({ scope, key });
    await store.append(
      `idempotency-${scope}-${sha256Hex(key)}`,
      [
        {
          id: randomUUID(),
          type: 'Idempotency.Claimed',
          schemaVersion: 1,
          data: {
            scope,
            method: 'POST',
            route: i.route,
            request_hash: requestHash('POST', i.route, i.body),
            resource_id: resourceId,
            payload: i.payload,
          },
          metadata: { ...metadata, tenant_id: scope, livemode },
        },
      ],
      'no_stream',
    );
  }

  test('issue 12, SPEC 5.2: live claims keep their stream id; test claims get a mode segment', async () => {
    const live = await claimIdempotencyKey({ store }, input({ key: 'modes-1', livemode: true }), metadata);
    const test_ = await claimIdempotencyKey(
      { store },
      input({ key: 'modes-1', livemode: false, resourceId: 'txn_test' }),
      metadata,
    );
    assert.equal(live.first, true);
    assert.equal(test_.first, true);
    assert.equal(idempotencyStream('ten_a', 'modes-1', true), `idempotency-ten_a-${sha256Hex('modes-1')}`);
    assert.equal((await store.read(idempotencyStream('ten_a', 'modes-1', true))).length, 1);
    assert.equal((await store.read(`idempotency-ten_a-test-${sha256Hex('modes-1')}`)).length, 1);
    assert.equal((await readClaim({ store }, 'ten_a', 'modes-1', false))?.resource_id, 'txn_test');
    assert.equal((await readClaim({ store }, 'ten_a', 'modes-1', true))?.resource_id, 'txn_1');
  });

  test('issue 12, SPEC 4: a live claim stored before issue 12 still replays', async () => {
    await legacyClaim('ten_legacy_live', 'old-1', true, 'txn_old_live');
    const again = await claimIdempotencyKey(
      { store },
      input({ scope: 'ten_legacy_live', key: 'old-1', livemode: true, resourceId: 'txn_new' }),
      metadata,
    );
    assert.equal(again.first, false);
    assert.equal(again.claim.resource_id, 'txn_old_live');
    // The test mode never sees it: the same key there is a new claim.
    const test_ = await claimIdempotencyKey(
      { store },
      input({ scope: 'ten_legacy_live', key: 'old-1', livemode: false, resourceId: 'txn_test' }),
      metadata,
    );
    assert.equal(test_.first, true);
  });

  test('issue 12, SPEC 5.2: a test claim stored before issue 12 replays in test and is never answered in live', async () => {
    await legacyClaim('ten_legacy_test', 'old-2', false, 'txn_old_test');
    const again = await claimIdempotencyKey(
      { store },
      input({ scope: 'ten_legacy_test', key: 'old-2', livemode: false, resourceId: 'txn_new' }),
      metadata,
    );
    assert.equal(again.first, false);
    assert.equal(again.claim.resource_id, 'txn_old_test');
    assert.equal((await store.read(`idempotency-ten_legacy_test-test-${sha256Hex('old-2')}`)).length, 0);

    const conflict = (e: unknown) => e instanceof DomainError && e.code === 'idempotency_conflict';
    await assert.rejects(
      claimIdempotencyKey(
        { store },
        input({ scope: 'ten_legacy_test', key: 'old-2', livemode: true, resourceId: 'txn_live' }),
        metadata,
      ),
      conflict,
    );
    await assert.rejects(readClaim({ store }, 'ten_legacy_test', 'old-2', true), conflict);
    assert.equal((await store.read(`idempotency-ten_legacy_test-${sha256Hex('old-2')}`)).length, 1);
  });
});
