import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { floorProcess } from '../../bench/http-server.ts';
import { readClaim } from '../../src/commands/idempotency.ts';
import { createEventRegistry, inlineProjections } from '../../src/commands/index.ts';
import { foldTransaction } from '../../src/commands/transactions/view.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';

/**
 * The benchmarks' floor server (bench/floor-server.ts, issue 14): a bare process that must still do what
 * SPEC requires of the three requests it stands for, or its cost is no floor. Checked against a migrated
 * database with the gateway's own readers: the claim and the charge it writes are the ones the gateway
 * would answer (SPEC 3.1, 4), a replay needs the same body (SPEC 4), the list shows the key's charges
 * (SPEC 4.3), and an unknown key is refused (SPEC 5.1).
 */
describe('bench floor server (issue 14)', () => {
  let db: TestDatabase;
  let floor: Awaited<ReturnType<typeof floorProcess>>;
  let seeded: SeededKey;
  const ctx = () => ({
    store: new PostgresEventStore(db.db, inlineProjections),
    events: createEventRegistry(),
  });
  const body = JSON.stringify({
    amount: 4_990,
    reference: 'floor-1',
    description: 'floor test',
    customer: { name: 'Maria Oliveira Santos', document: '39053344705', email: 'maria@example.com.br' },
  });

  beforeAll(async () => {
    db = await createTestDatabase();
    seeded = await seedTenantAndKey({ ...ctx(), now: () => new Date() });
    floor = await floorProcess(db.url, 4);
  });
  afterAll(async () => {
    await floor?.stop();
    await db?.drop();
  });

  const post = (path: string, key: string, payload: string, apiKey = seeded.key) =>
    fetch(`${floor.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'idempotency-key': key },
      body: payload,
    });

  test('SPEC 3.1, 4: a creation leaves the claim and a pending charge the gateway reads back; its replay answers 200 and another body 409', async () => {
    const created = await post('/v1/pix', 'floor-key-1', body);
    assert.equal(created.status, 201);
    const id = ((await created.json()) as { data: { id: string } }).data.id;

    const claim = await readClaim({ store: ctx().store }, seeded.tenantId, 'floor-key-1', false);
    assert.equal(claim?.resource_id, id);
    const folded = await foldTransaction(ctx(), id);
    assert.equal(folded?.row.status, 'pending');
    assert.equal(Number(folded?.row.amount), 4_990);
    assert.equal(folded?.row.tenant_id, seeded.tenantId);

    const replay = await post('/floor/replay', 'floor-key-1', body);
    assert.equal(replay.status, 200);
    assert.equal(replay.headers.get('idempotency-replayed'), 'true');
    assert.equal(((await replay.json()) as { data: { id: string } }).data.id, id);

    const other = await post('/floor/replay', 'floor-key-1', body.replace('4990', '4991'));
    assert.equal(other.status, 409);
  });

  test('SPEC 4.3, 5.1: the list shows the key tenant’s charges newest first; an unknown key is 401', async () => {
    await post('/v1/pix', 'floor-key-2', body);
    const res = await fetch(`${floor.url}/v1/transactions?limit=100`, {
      headers: { 'x-api-key': seeded.key },
    });
    assert.equal(res.status, 200);
    const page = (await res.json()) as { data: { id: string; tenant_id: string; created_at: string }[] };
    assert.ok(page.data.length >= 2);
    assert.ok(page.data.every((r) => r.tenant_id === seeded.tenantId));
    const times = page.data.map((r) => Date.parse(r.created_at));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );

    const unknown = await post('/v1/pix', 'floor-key-3', body, `clb_test_${'x'.repeat(43)}`);
    assert.equal(unknown.status, 401);
  });
});
