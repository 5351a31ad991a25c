import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { sql, type Transaction } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { DomainError, fold } from '../../src/aggregates/decider.ts';
import {
  type TransactionCommand,
  type TransactionEvent,
  transaction,
} from '../../src/aggregates/transaction.ts';
import { type CommandDeps, handleCommand } from '../../src/commands/command-handler.ts';
import { createEventRegistry, inlineProjections } from '../../src/commands/index.ts';
import type { Database } from '../../src/db/schema.ts';
import type { RecordedEvent } from '../../src/events/event-store.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { newId } from '../../src/ids.ts';
import { transactionsProjection } from '../../src/projections/transactions.ts';
import { webhookMessageId, webhookOutboxProjection } from '../../src/projections/webhook-outbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import {
  chargeKind,
  commandOfStep,
  pixArtifacts,
  randomStep,
  reserveCommand,
} from '../support/transactions.ts';

/**
 * The webhook outbox read model (SPEC 6; issue 6 item 2; DESIGN.md "Projections"): inline, one statement per
 * event folds the charge's status (guarded by its stream version) and writes the message and deliveries only
 * when the status changed and there is somewhere to send it. Checked against the stream folded by the
 * decider, against the batch form (`handleBatch`) and against replays of applied events.
 */

const metadata = { actor: 'system:test', request_id: 'req_webhook_outbox' };
const at = new Date('2026-01-01T00:00:00.000Z');

/** ten_acme: two live endpoints (and a disabled test one); ten_other: one test endpoint (a deleted live one). */
async function seedEndpoints(t: TestDatabase) {
  const row = (id: string, tenant_id: string, mode: 'live' | 'test', enabled: boolean, deleted: boolean) => ({
    id,
    tenant_id,
    url: `https://hooks.example.com/${id}`,
    mode,
    enabled,
    sequence: 1,
    created_at: at,
    updated_at: at,
    deleted_at: deleted ? at : null,
  });
  await t.db
    .insertInto('webhook_endpoints')
    .values([
      row('we_acme_live_1', 'ten_acme', 'live', true, false),
      row('we_acme_live_2', 'ten_acme', 'live', true, false),
      row('we_acme_test_off', 'ten_acme', 'test', false, false),
      row('we_other_test', 'ten_other', 'test', true, false),
      row('we_other_live_gone', 'ten_other', 'live', true, true),
    ])
    .execute();
}

/** Everything the outbox holds, delivery ids (random) aside; `snapshots` false leaves message snapshots out. */
async function outbox(t: TestDatabase, snapshots = true) {
  const { rows: messages } = await sql<Record<string, unknown>>`
    select * from webhook_messages order by id`.execute(t.db);
  return {
    states: await t.db.selectFrom('webhook_charge_states').selectAll().orderBy('transaction_id').execute(),
    messages: snapshots ? messages : messages.map(({ snapshot: _s, ...m }) => m),
    deliveries: (
      await sql`
        select message_id, tenant_id, transaction_id, destination, endpoint_id, callback_url, status, attempts,
          next_attempt_at, created_at, updated_at
        from webhook_deliveries order by message_id, destination, endpoint_id`.execute(t.db)
    ).rows,
  };
}

describe('webhook outbox read model (SPEC 6; DESIGN.md "Projections")', () => {
  let t: TestDatabase;
  let store: PostgresEventStore;
  let deps: CommandDeps;
  let clock = new Date('2026-03-01T12:00:00.000Z').getTime();

  beforeAll(async () => {
    t = await createTestDatabase();
    await seedEndpoints(t);
    store = new PostgresEventStore(t.db, inlineProjections);
    deps = { store, registry: createEventRegistry(), now: () => new Date(clock) };
    // Random histories over three tenants, with and without callback_url, appended one command at a time
    // (each append applies the single-event `handle` inline).
    const charge = fc.record({
      kind: chargeKind,
      steps: fc.array(randomStep, { minLength: 1, maxLength: 16 }),
      tenant: fc.constantFrom('ten_acme', 'ten_other', 'ten_none'),
      callback: fc.boolean(),
    });
    const charges = fc.sample(charge, { numRuns: 60, seed: 20261121 });
    const ids = charges.map(() => newId('txn'));
    const longest = Math.max(...charges.map((c) => c.steps.length));
    for (let i = 0; i < longest; i++) {
      for (const [n, c] of charges.entries()) {
        const id = ids[n] as string;
        const step = c.steps[i];
        if (!step) continue;
        clock += step.advanceSeconds * 1000;
        const current = fold(
          transaction,
          (await store.read(`transaction-${id}`)).map((r) => deps.registry.decode(r) as TransactionEvent),
        ).status;
        const reserve = reserveCommand(id, c.kind);
        const command: TransactionCommand =
          current === 'none'
            ? {
                ...reserve,
                tenantId: c.tenant,
                callbackUrl: c.callback ? `https://client.example.com/${id}` : null,
                request: { ...reserve.request, tenant_id: c.tenant },
              }
            : commandOfStep(step, id, c.kind, current);
        try {
          await handleCommand(deps, transaction, `transaction-${id}`, command, { metadata });
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
        }
      }
    }
  });
  afterAll(() => t.drop());

  /**
   * Every charge event in commit order. Stream reads, not `readAll`: that one stops below the oldest
   * transaction still open anywhere in the cluster. The appends ran one at a time, so positions are
   * commit order.
   */
  async function log() {
    const { rows } = await sql<{ stream_id: string }>`
      select stream_id from streams where stream_id like 'transaction-%'`.execute(t.db);
    const events = (await Promise.all(rows.map((r) => store.read(r.stream_id)))).flat();
    return events.sort((a, b) => a.position - b.position);
  }

  test('one message per status change with a destination, previous_status from the fold of the stream', async () => {
    const { rows: streams } = await sql<{ stream_id: string }>`
      select stream_id from streams where stream_id like 'transaction-%'`.execute(t.db);
    const endpoints = await t.db
      .selectFrom('webhook_endpoints')
      .select(['id', 'tenant_id', 'mode'])
      .where('enabled', '=', true)
      .where('deleted_at', 'is', null)
      .execute();
    const expected: unknown[] = [];
    let updates = 0;
    for (const { stream_id } of streams) {
      const recorded = await store.read(stream_id);
      const events = recorded.map((r) => deps.registry.decode(r) as TransactionEvent);
      let previous: string | null = null;
      for (const [k, r] of recorded.entries()) {
        const status = fold(transaction, events.slice(0, k + 1)).status;
        if (k > 0 && status === previous) continue;
        const s = fold(transaction, events.slice(0, k + 1));
        if (s.status === 'none') continue;
        const mode = s.reserved.livemode ? 'live' : 'test';
        const destinations = endpoints.filter((e) => e.tenant_id === s.reserved.tenant_id && e.mode === mode);
        if (destinations.length > 0 || s.reserved.callback_url !== null) {
          expected.push({
            id: webhookMessageId(r.id),
            type: k === 0 ? 'transaction.created' : 'transaction.updated',
            status,
            previous_status: k === 0 ? null : previous,
            sequence: String(r.version),
            deliveries: destinations.length + (s.reserved.callback_url === null ? 0 : 1),
          });
          if (k > 0) updates++;
        }
        previous = status;
      }
    }
    const { rows } = await sql<{ id: string; snapshot_sequence: string | null }>`
      select m.id, m.type, m.status, m.previous_status, m.sequence::text as sequence,
        (select count(*)::int from webhook_deliveries d where d.message_id = m.id) as deliveries,
        m.snapshot->>'sequence' as snapshot_sequence
      from webhook_messages m`.execute(t.db);
    const byId = (a: unknown, b: unknown) => (a as { id: string }).id.localeCompare((b as { id: string }).id);
    assert.deepEqual(rows.map(({ snapshot_sequence: _s, ...m }) => m).sort(byId), expected.sort(byId));
    assert.ok(updates > 10, `only ${updates} transaction.updated messages: widen the histories`);
    // Inline, every message carries the charge's row at its own version.
    for (const m of rows) assert.equal(m.snapshot_sequence, (m as unknown as { sequence: string }).sequence);
  });

  test('an event that leaves the status as it was moves the fold on and sends nothing; a stale one changes nothing', async () => {
    // A pending live charge with a callback_url, made here rather than drawn from the random histories.
    const id = newId('txn');
    const reserve = reserveCommand(id, 'pix_live');
    await handleCommand(
      deps,
      transaction,
      `transaction-${id}`,
      {
        ...reserve,
        tenantId: 'ten_acme',
        callbackUrl: `https://client.example.com/${id}`,
        request: { ...reserve.request, tenant_id: 'ten_acme' },
      },
      { metadata },
    );
    await handleCommand(
      deps,
      transaction,
      `transaction-${id}`,
      { kind: 'record_issued', artifacts: pixArtifacts(`ext_${id}`) },
      { metadata },
    );
    const state = await t.db
      .selectFrom('webhook_charge_states')
      .selectAll()
      .where('transaction_id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    const sequence = Number(state.sequence);
    // Not reachable through the decider today (no command appends an event that keeps the status), so the
    // events are made by hand, applied in a transaction that is rolled back.
    const event = (type: string, version: number): RecordedEvent => ({
      id: randomUUID(),
      stream: `transaction-${id}`,
      version,
      position: 0,
      checkpoint: { tx: 0, pos: 0 },
      type,
      schemaVersion: 1,
      data: { transaction_id: id },
      metadata,
      recordedAt: new Date(),
    });
    const messagesOf = (trx: Transaction<Database>) =>
      trx
        .selectFrom('webhook_messages')
        .select(['type', 'status', 'previous_status', 'sequence'])
        .where('transaction_id', '=', id)
        .orderBy('sequence')
        .execute();
    const stateOf = (trx: Transaction<Database>) =>
      trx
        .selectFrom('webhook_charge_states')
        .select(['status', 'sequence'])
        .where('transaction_id', '=', id)
        .executeTakeFirstOrThrow();
    const rollback = new Error('rollback');
    await assert.rejects(
      t.db.transaction().execute(async (trx) => {
        const before = await messagesOf(trx);
        await webhookOutboxProjection.handle(event('Transaction.AwaitingPayment', sequence + 1), trx);
        assert.deepEqual(await messagesOf(trx), before);
        assert.deepEqual(await stateOf(trx), { status: 'pending', sequence: String(sequence + 1) });
        await webhookOutboxProjection.handle(event('Transaction.PaymentProcessing', sequence + 2), trx);
        const after = await messagesOf(trx);
        assert.deepEqual(after.at(-1), {
          type: 'transaction.updated',
          status: 'processing',
          previous_status: 'pending',
          sequence: String(sequence + 2),
        });
        assert.equal(after.length, before.length + 1);
        // Stale (an older or the same version, a new event id): neither the fold nor the outbox moves.
        await webhookOutboxProjection.handle(event('Transaction.AwaitingPayment', sequence + 1), trx);
        await webhookOutboxProjection.handle(event('Transaction.AwaitingPayment', sequence + 2), trx);
        assert.deepEqual(await messagesOf(trx), after);
        assert.deepEqual(await stateOf(trx), { status: 'processing', sequence: String(sequence + 2) });
        throw rollback;
      }),
      (error) => error === rollback,
    );
  });

  test('the batch form (handleBatch over the whole log) leaves the same outbox as handle per event', async () => {
    const events = await log();
    const u = await createTestDatabase({ poolSize: 2 });
    try {
      await seedEndpoints(u);
      await u.db.transaction().execute(async (trx) => {
        await transactionsProjection.handleBatch?.(events, trx);
        await webhookOutboxProjection.handleBatch?.(events, trx);
      });
      // The batch inserts a new charge's row once, at its last version: only that message finds a snapshot.
      assert.deepEqual(await outbox(u, false), await outbox(t, false));
    } finally {
      await u.drop();
    }
  });

  test('replaying applied events (stale, duplicated, out of order) changes nothing', async () => {
    const before = await outbox(t);
    const events = await log();
    const picks = fc.sample(fc.nat({ max: events.length - 1 }), { numRuns: 60, seed: 7 });
    await t.db.transaction().execute(async (trx) => {
      for (const k of picks) {
        const event = events[k];
        if (!event) continue;
        await transactionsProjection.handle(event, trx);
        await webhookOutboxProjection.handle(event, trx);
      }
    });
    assert.deepEqual(await outbox(t), before);
  });
});
