import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import fc from 'fast-check';
import { type Selectable, sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { DomainError, fold } from '../../src/aggregates/decider.ts';
import {
  type TransactionCommand,
  type TransactionEvent,
  transaction,
} from '../../src/aggregates/transaction.ts';
import { useDocumentSigningSecret } from '../../src/charge-page/stored-signature.ts';
import { type CommandDeps, handleCommand } from '../../src/commands/command-handler.ts';
import { auditProjection, createEventRegistry, inlineProjections } from '../../src/commands/index.ts';
import type { TransactionRequestsTable, TransactionsTable } from '../../src/db/schema.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { newId } from '../../src/ids.ts';
import { ProjectionRunner } from '../../src/projections/projection-runner.ts';
import { transactionsProjection } from '../../src/projections/transactions.ts';
import { createPgliteDatabase, createTestDatabase, type TestDatabase } from '../support/databases.ts';
import {
  type ChargeKind,
  chargeKind,
  commandOfStep,
  randomStep,
  reserveCommand,
} from '../support/transactions.ts';

const metadata = { actor: 'system:test', request_id: 'req_transactions' };
const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);

async function readModels(t: Pick<TestDatabase, 'db'>) {
  return {
    transactions: await t.db.selectFrom('transactions').selectAll().orderBy('id').execute(),
    requests: await t.db.selectFrom('transaction_requests').selectAll().orderBy('transaction_id').execute(),
  };
}

const ts = (iso: string | null) => (iso === null ? null : new Date(iso));

/**
 * Issue 14: the row keeps the charge link's signature (SPEC 2.2 `document_url`) under the process's secret,
 * as `<key id>.<signature>`: the key id is 8 hex digits of sha256("calebe:document-key-id:v1:" + secret), the
 * signature the first 32 base64url characters of HMAC-SHA256(secret, "calebe:document:v1:" + id).
 */
const SECRET = 'transactions-projection-test-secret-0123456789';
function storedSignature(id: string): string {
  const keyId = createHash('sha256').update(`calebe:document-key-id:v1:${SECRET}`).digest('hex').slice(0, 8);
  const signature = createHmac('sha256', SECRET)
    .update(`calebe:document:v1:${id}`)
    .digest('base64url')
    .slice(0, 32);
  return `${keyId}.${signature}`;
}

/** The read models computed from the log alone: every `transaction-` stream folded with the decider. */
async function foldOfStreams(t: Pick<TestDatabase, 'db'>, store: PostgresEventStore) {
  const registry = createEventRegistry();
  const { rows } = await sql<{ stream_id: string }>`
    select stream_id from streams where stream_id like 'transaction-%'`.execute(t.db);
  const transactions: Selectable<TransactionsTable>[] = [];
  const requests: Selectable<TransactionRequestsTable>[] = [];
  for (const { stream_id } of rows) {
    const recorded = await store.read(stream_id);
    const first = recorded[0];
    const last = recorded.at(-1);
    if (!first || !last) continue;
    const s = fold(
      transaction,
      recorded.map((r) => registry.decode(r) as TransactionEvent),
    );
    assert.notEqual(s.status, 'none');
    if (s.status === 'none') continue;
    const r = s.reserved;
    const a = s.artifacts;
    transactions.push({
      id: r.transaction_id,
      tenant_id: r.tenant_id,
      livemode: r.livemode,
      method: r.method,
      status: s.status,
      amount: String(r.amount),
      currency: r.currency,
      reference: r.reference,
      description: r.description,
      simulated: r.simulated,
      environment: r.environment,
      provider_id: r.provider_id,
      subaccount_id: r.subaccount_id,
      provider_reference: a.provider_reference,
      cost_center_id: r.cost_center_id,
      callback_url: r.callback_url,
      pix_copy_paste: a.pix_copy_paste,
      pix_qr_code: a.pix_qr_code,
      expires_at: ts(a.expires_at),
      boleto_due_date: s.boletoDueDate,
      boleto_url: a.boleto_url,
      boleto_digitable_line: a.boleto_digitable_line,
      boleto_barcode: a.boleto_barcode,
      boleto_pix_copy_paste: a.boleto_pix_copy_paste,
      boleto_pix_expires_at: ts(a.boleto_pix_expires_at),
      failure_code: s.failureCode,
      ...s.diagnostics,
      paid_with: s.paidWith,
      paid_at: ts(s.paidAt),
      duplicate_payment_at: ts(s.duplicatePaymentAt),
      refund_status: s.refundStatus,
      credit_card: r.credit_card
        ? {
            brand: r.credit_card.card.brand,
            last_four: r.credit_card.card.last_four,
            holder: r.credit_card.card.holder,
            expiration: r.credit_card.card.expiration,
            installments: r.credit_card.installments,
          }
        : null,
      card_id: s.cardId,
      document_signature: storedSignature(r.transaction_id),
      duplicate_refund: s.duplicateRefund?.status ?? null,
      pending_due_date: s.pendingDueDate,
      refund_route: s.refundRoute,
      refund_transfer_id: s.refundTransferId,
      pix_automatic_authorization_id: r.pix_automatic_authorization_id ?? null,
      scheduled_due_date: r.scheduled_due_date ?? null,
      fees: r.fees ?? null,
      sequence: String(recorded.length),
      created_at: first.recordedAt,
      updated_at: last.recordedAt,
    });
    requests.push({
      transaction_id: r.transaction_id,
      tenant_id: r.tenant_id,
      livemode: r.livemode,
      source: 'captured',
      request: r.request,
      provider_request: r.provider_request,
      missing_fields: [],
      created_at: first.recordedAt,
    });
  }
  return {
    transactions: transactions.sort(byId),
    requests: requests.sort((x, y) => x.transaction_id.localeCompare(y.transaction_id)),
  };
}

describe('transactions read model (SPEC 2.2, 2.3, 4.3; DESIGN.md "Projections")', () => {
  let t: TestDatabase;
  let store: PostgresEventStore;
  let deps: CommandDeps;
  let clock = new Date('2026-03-01T12:00:00.000Z').getTime();

  beforeAll(async () => {
    useDocumentSigningSecret(SECRET);
    t = await createTestDatabase();
    store = new PostgresEventStore(t.db, inlineProjections);
    deps = { store, registry: createEventRegistry(), now: () => new Date(clock) };
  });
  afterAll(() => t.drop());

  async function run(id: string, command: TransactionCommand) {
    try {
      return await handleCommand(deps, transaction, `transaction-${id}`, command, { metadata });
    } catch (error) {
      if (error instanceof DomainError) return error;
      throw error;
    }
  }

  test('a reservation is visible at once (inline), with its captured snapshot', async () => {
    const id = newId('txn');
    await run(id, reserveCommand(id, 'boleto_live'));
    const row = await t.db
      .selectFrom('transactions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'processing');
    assert.equal(row.sequence, '1');
    assert.equal(row.boleto_due_date, '2026-03-10');
    const request = await t.db
      .selectFrom('transaction_requests')
      .selectAll()
      .where('transaction_id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(request.source, 'captured');
    assert.deepEqual(request.missing_fields, []);
    assert.deepEqual(request.provider_request, { valor: '12.50', referencia: id });
    // The listing filters of SPEC 4.3 are served by indexes leading with (tenant_id, livemode).
    const { rows } = await sql<{ indexname: string }>`
      select indexname from pg_indexes where tablename = 'transactions' order by indexname`.execute(t.db);
    assert.deepEqual(
      rows.map((r) => r.indexname),
      [
        'transactions_cost_center',
        'transactions_duplicate_refund_owed',
        'transactions_list',
        'transactions_method',
        // The reconciler's scan of refunds and due-date changes awaiting settlement (SPEC 4.8).
        'transactions_pending_changes',
        'transactions_pix_automatic',
        'transactions_pkey',
        'transactions_reference',
        // The panel's queue of refunds awaiting an operator (issue 22 item 4).
        'transactions_refunds_awaiting_operator',
        'transactions_status',
        'transactions_unsettled',
      ],
    );
  });

  test('a replayed reservation, compared with the stored (decoded) facts, appends nothing', async () => {
    const id = newId('txn');
    const command = reserveCommand(id, 'pix_live', {
      request: { ...reserveCommand(id).request, cost_center_id: undefined },
    });
    await run(id, command);
    clock += 60_000;
    const replay = await run(id, reserveCommand(id));
    assert.ok(!(replay instanceof DomainError));
    assert.equal(replay.events.length, 0);
    const other = await run(id, reserveCommand(id, 'pix_live', { reference: 'order-43' }));
    assert.ok(other instanceof DomainError && other.code === 'idempotency_conflict');
  });

  test('the audit log records a reservation without the snapshot (payer personal data)', async () => {
    const runner = new ProjectionRunner(t.db, store, [auditProjection]);
    await runner.catchUp(auditProjection);
    const rows = await t.db
      .selectFrom('audit_log')
      .select(['after', 'tenant_id'])
      .where('action', '=', 'transaction.reserved')
      .execute();
    assert.ok(rows.length > 0);
    for (const row of rows) {
      assert.equal(row.tenant_id, 'ten_acme');
      const text = JSON.stringify(row.after);
      assert.ok(
        !text.includes('Maria') && !text.includes('11987654321') && !text.includes('idempotency'),
        text,
      );
    }
  });

  test('property: after random command sequences the read model equals the fold of the streams', async () => {
    const charge = fc.record({
      kind: chargeKind,
      steps: fc.array(randomStep, { minLength: 1, maxLength: 12 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(charge, { minLength: 1, maxLength: 4 }), async (charges) => {
        const ids = charges.map(() => newId('txn'));
        // Interleave the charges' commands, as concurrent requests would.
        const longest = Math.max(...charges.map((c) => c.steps.length));
        for (let i = 0; i < longest; i++) {
          for (const [n, c] of charges.entries()) {
            const id = ids[n];
            const step = c.steps[i];
            if (!id || !step) continue;
            clock += step.advanceSeconds * 1000;
            const current = fold(
              transaction,
              (await store.read(`transaction-${id}`)).map((r) => deps.registry.decode(r) as TransactionEvent),
            ).status;
            // Every charge starts with its reservation; later steps are random.
            const kind: ChargeKind = c.kind;
            const command =
              current === 'none' ? reserveCommand(id, kind) : commandOfStep(step, id, kind, current);
            await run(id, command);
          }
        }
        assert.deepEqual(await readModels(t), await foldOfStreams(t, store));
      }),
      { numRuns: 15 },
    );
  });

  test('a rebuild (ProjectionRunner.rebuild) reproduces the read model exactly, even after damage', async () => {
    const before = await readModels(t);
    assert.ok(before.transactions.length > 5);
    assert.ok(new Set(before.transactions.map((r) => r.status)).size >= 3, 'the runs reached several states');
    await sql`update transactions set status = 'paid', sequence = 0, paid_with = null`.execute(t.db);
    await sql`delete from transaction_requests where transaction_id in (select id from transactions limit 2)`.execute(
      t.db,
    );
    assert.notDeepEqual(await readModels(t), before);

    const runner = new ProjectionRunner(t.db, store, [transactionsProjection]);
    await runner.rebuild(transactionsProjection);
    assert.deepEqual(await readModels(t), before);
    assert.deepEqual(await readModels(t), await foldOfStreams(t, store));
  });

  test('replaying an already applied event changes nothing (updates are conditioned on sequence)', async () => {
    const before = await readModels(t);
    const { rows } = await sql<{ stream_id: string }>`
      select stream_id from streams where stream_id like 'transaction-%' limit 3`.execute(t.db);
    await t.db.transaction().execute(async (trx) => {
      for (const { stream_id } of rows) {
        for (const e of await store.read(stream_id)) await transactionsProjection.handle(e, trx);
      }
    });
    assert.deepEqual(await readModels(t), before);
  });
});

// Issue 14: an append and its inline projections are one statement (Projection.fused); the embedded store
// runs the same SQL, so the same property holds on PGlite.
describe('transactions read model on PGlite (embedded; issue 14 one-statement appends)', () => {
  let t: Awaited<ReturnType<typeof createPgliteDatabase>>;
  let store: PostgresEventStore;
  let deps: CommandDeps;
  let clock = new Date('2026-03-01T12:00:00.000Z').getTime();

  beforeAll(async () => {
    useDocumentSigningSecret(SECRET);
    t = await createPgliteDatabase();
    store = new PostgresEventStore(t.db, inlineProjections);
    deps = { store, registry: createEventRegistry(), now: () => new Date(clock) };
  });
  afterAll(() => t.drop());

  test('property: after random command sequences the read model equals the fold of the streams', async () => {
    const charge = fc.record({
      kind: chargeKind,
      steps: fc.array(randomStep, { minLength: 1, maxLength: 8 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(charge, { minLength: 1, maxLength: 3 }), async (charges) => {
        for (const c of charges) {
          const id = newId('txn');
          for (const step of c.steps) {
            clock += step.advanceSeconds * 1000;
            const current = fold(
              transaction,
              (await store.read(`transaction-${id}`)).map((r) => deps.registry.decode(r) as TransactionEvent),
            ).status;
            const command =
              current === 'none' ? reserveCommand(id, c.kind) : commandOfStep(step, id, c.kind, current);
            try {
              await handleCommand(deps, transaction, `transaction-${id}`, command, { metadata });
            } catch (error) {
              if (!(error instanceof DomainError)) throw error;
            }
          }
        }
        // PGlite hands bigint columns back as numbers, pg as strings.
        const stored = await readModels(t);
        const transactions = stored.transactions.map((r) => ({
          ...r,
          amount: String(r.amount),
          sequence: String(r.sequence),
        }));
        assert.deepEqual({ ...stored, transactions }, await foldOfStreams(t, store));
      }),
      { numRuns: 5 },
    );
  });
});
