import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { TransactionCommand } from '../../src/aggregates/transaction.ts';
import { transaction } from '../../src/aggregates/transaction.ts';
import { type CommandDeps, handleCommand } from '../../src/commands/command-handler.ts';
import { createEventRegistry, inlineProjections } from '../../src/commands/index.ts';
import { RECONCILER_ACTOR, reconcileJob } from '../../src/commands/transactions/reconcile/job.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { newId } from '../../src/ids.ts';
import { reconcilerMarkedUnknown } from '../../src/metrics.ts';
import { JobRunner } from '../../src/workers/job-runner.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { jobDeps } from '../support/jobs.ts';
import { type ChargeKind, commandOf, reserveCommand } from '../support/transactions.ts';

const TIMEOUT = 120;
const metadata = { actor: 'system:test', request_id: 'req_reconciler' };

async function markedTotal(): Promise<number> {
  return (await reconcilerMarkedUnknown.get()).values[0]?.value ?? 0;
}

describe('reconciler (DESIGN.md reserve -> call -> record outcome; SPEC 3.1 unknown)', () => {
  let t: TestDatabase;
  let store: PostgresEventStore;

  beforeAll(async () => {
    t = await createTestDatabase();
    store = new PostgresEventStore(t.db, inlineProjections);
  });
  afterAll(() => t.drop());

  /** The app's deps at a given clock (the reservation's `reserved_at` is this clock). */
  const depsAt = (at: Date): CommandDeps => ({ store, registry: createEventRegistry(), now: () => at });

  async function charge(at: Date, kind: ChargeKind = 'pix_live', then: TransactionCommand[] = []) {
    const id = newId('txn');
    const deps = depsAt(at);
    await handleCommand(deps, transaction, `transaction-${id}`, reserveCommand(id, kind), { metadata });
    for (const command of then) {
      await handleCommand(deps, transaction, `transaction-${id}`, command, { metadata });
    }
    return id;
  }

  const status = async (id: string) =>
    (await t.db.selectFrom('transactions').select('status').where('id', '=', id).executeTakeFirstOrThrow())
      .status;
  const events = (id: string) => store.read(`transaction-${id}`);
  /** One tick of the reconciler (without provider reads), on a store of its own, at `at`. */
  const reconcile = (at: Date, on: PostgresEventStore = new PostgresEventStore(t.db, inlineProjections)) =>
    reconcileJob({ external: false }).run(
      jobDeps(t.db, on, { config: { RECONCILE_AFTER_SECONDS: TIMEOUT } }),
      {
        now: at,
      },
    );

  /** Every stream of the given charges holds only the reservation and the reconciler's Unconfirmed. */
  async function assertNoProviderOutcome(ids: string[]) {
    for (const id of ids) {
      for (const e of await events(id)) {
        assert.ok(['Transaction.Reserved', 'Transaction.Unconfirmed'].includes(e.type), e.type);
      }
    }
  }

  test('DESIGN.md crash between reserve and record: processing past the timeout becomes unknown as system:reconciler, never charged again', async () => {
    const start = new Date();
    const old = await charge(start);
    // Recorded now, but reserved "later" by the app clock: selected by the read model, refused by the decider.
    const young = await charge(new Date(start.getTime() + 100_000));
    const before = await markedTotal();

    const early = await reconcile(new Date(start.getTime() + 60_000));
    assert.deepEqual(early.marked, []);
    assert.equal(early.scanned, 0, 'the read model filters reservations younger than the timeout');

    const run = await reconcile(new Date(start.getTime() + (TIMEOUT + 10) * 1000));
    assert.deepEqual(run.marked, [old]);
    assert.deepEqual(run.failed, []);
    assert.equal(await status(old), 'unknown');
    assert.equal(await status(young), 'processing', 'a reservation younger than the timeout stays');

    const log = await events(old);
    assert.equal(log.length, 2);
    const last = log[1];
    assert.ok(last);
    assert.equal(last.type, 'Transaction.Unconfirmed');
    assert.deepEqual(last.data, {
      transaction_id: old,
      reason: 'processing_timeout',
      provider_reference: null,
      provider_error_code: null,
      provider_error_message: null,
      provider_http_status: null,
    });
    assert.equal(last.metadata.actor, RECONCILER_ACTOR);
    assert.equal(last.metadata.tenant_id, 'ten_acme');
    assert.equal((await events(young)).length, 1);
    assert.equal((await markedTotal()) - before, 1, 'calebe_reconciler_marked_unknown_total');
    await assertNoProviderOutcome([old, young]);

    // SPEC 3.1: unknown is not touched again automatically.
    const again = await reconcile(new Date(start.getTime() + (TIMEOUT + 3600) * 1000));
    assert.ok(!again.marked.includes(old));
    assert.equal((await events(old)).length, 2);
  });

  test('SPEC 3.1: pending, failed, unknown and a boleto payment intent (processing again) are untouched', async () => {
    const start = new Date();
    const pending = await charge(start, 'pix_live', [
      commandOf('record_issued', { transactionId: '', chargeKind: 'pix_live', observed: 'processing' }),
    ]);
    const failed = await charge(start, 'pix_live', [
      commandOf('record_refused', { transactionId: '', chargeKind: 'pix_live', observed: 'processing' }),
    ]);
    const unknown = await charge(start, 'pix_live', [
      commandOf('record_uncertain', { transactionId: '', chargeKind: 'pix_live', observed: 'processing' }),
    ]);
    const intent = await charge(start, 'boleto_live', [
      commandOf('record_issued', { transactionId: '', chargeKind: 'boleto_live', observed: 'processing' }),
      commandOf('refresh_processing', { transactionId: '', chargeKind: 'boleto_live', observed: 'pending' }),
    ]);
    assert.equal(await status(intent), 'processing');
    const lengths = new Map<string, number>();
    for (const id of [pending, failed, unknown, intent]) lengths.set(id, (await events(id)).length);

    const run = await reconcile(new Date(start.getTime() + (TIMEOUT + 600) * 1000));
    for (const id of [pending, failed, unknown, intent]) {
      assert.ok(!run.marked.includes(id), id);
      assert.equal((await events(id)).length, lengths.get(id), `no event appended to ${id}`);
    }
    assert.equal(await status(pending), 'pending');
    assert.equal(await status(failed), 'failed');
    assert.equal(await status(unknown), 'unknown');
    assert.equal(await status(intent), 'processing', 'an issued boleto with a payment intent is not unknown');
  });

  test('DESIGN.md several worker instances: two reconcilers at once mark each charge exactly once', async () => {
    const start = new Date();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await charge(start));
    const before = await markedTotal();
    const at = new Date(start.getTime() + (TIMEOUT + 1) * 1000);

    const [a, b] = await Promise.all([reconcile(at), reconcile(at)]);
    assert.deepEqual([...a.failed, ...b.failed], []);
    const marked = [...a.marked, ...b.marked].filter((id) => ids.includes(id)).sort();
    assert.deepEqual(marked, [...ids].sort(), 'each charge marked by exactly one instance');
    for (const id of ids) {
      const log = await events(id);
      assert.deepEqual(
        log.map((e) => e.type),
        ['Transaction.Reserved', 'Transaction.Unconfirmed'],
      );
      assert.equal(await status(id), 'unknown');
    }
    assert.equal((await markedTotal()) - before, a.marked.length + b.marked.length);
    await assertNoProviderOutcome(ids);
  });

  test('DESIGN.md several worker instances: the instance that lost the race gets WrongExpectedVersion, re-decides, appends nothing', async () => {
    const start = new Date();
    const id = await charge(start);
    const at = new Date(start.getTime() + (TIMEOUT + 1) * 1000);
    let appendsTried = 0;
    /** B read the stream before A's append committed: its first read is stale, its append must lose. */
    class LateStore extends PostgresEventStore {
      private first = true;
      override async read(stream: string, fromVersion?: number) {
        const events = await super.read(stream, fromVersion);
        if (this.first) {
          this.first = false;
          assert.deepEqual((await reconcile(at)).marked, [id]);
        }
        return events;
      }
      override async append(...args: Parameters<PostgresEventStore['append']>) {
        appendsTried++;
        return super.append(...args);
      }
    }
    const run = await reconcile(at, new LateStore(t.db, inlineProjections));
    assert.equal(run.scanned, 1);
    assert.deepEqual(run.marked, []);
    assert.deepEqual(run.failed, []);
    assert.equal(appendsTried, 1, 'one append tried on the stale state, then the re-decision is a no-op');
    assert.deepEqual(
      (await events(id)).map((e) => e.type),
      ['Transaction.Reserved', 'Transaction.Unconfirmed'],
    );
  });

  test('DESIGN.md workers: start() ticks on its interval until stop(); one batch per tick', async () => {
    // Earlier tests' leftovers (oldest first) would take the one-row batch: settle them first.
    await reconcile(new Date(Date.now() + 86_400_000));
    const a = await charge(new Date());
    const b = await charge(new Date());
    const ahead = () => new Date(Date.now() + (TIMEOUT + 5) * 1000);
    const job = reconcileJob({ batchSize: 1, external: false });
    const deps = jobDeps(t.db, store, {
      config: { RECONCILE_AFTER_SECONDS: TIMEOUT, RECONCILE_INTERVAL_MS: 20 },
    });
    assert.equal((await job.run(deps, { now: ahead() })).marked.length, 1, 'at most batchSize per tick');
    const worker = new JobRunner([job], deps, { clock: { now: ahead } });
    worker.start();
    const deadline = Date.now() + 5000;
    while ((await status(a)) !== 'unknown' || (await status(b)) !== 'unknown') {
      assert.ok(Date.now() < deadline, 'the loop marks the rest on a later tick');
      await new Promise((r) => setTimeout(r, 20));
    }
    await worker.stop();
    assert.equal((await events(a)).length, 2);
    assert.equal((await events(b)).length, 2);
  });
});
