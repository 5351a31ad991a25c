import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { transaction } from '../../src/aggregates/transaction.ts';
import { handleCommand } from '../../src/commands/command-handler.ts';
import { createEventRegistry, inlineProjections } from '../../src/commands/index.ts';
import { reconcileJob } from '../../src/commands/transactions/reconcile/job.ts';
import { type DatabaseHandle, openDatabase } from '../../src/db/database.ts';
import type { Database } from '../../src/db/schema.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { newId } from '../../src/ids.ts';
import { JobRunner } from '../../src/workers/job-runner.ts';
import { JobLease, LeaseLostError } from '../../src/workers/lease.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { jobDeps } from '../support/jobs.ts';
import { reserveCommand } from '../support/transactions.ts';

/**
 * Issue 23 item 2.11: the reconciler's lease must not lapse in the middle of a slow run. Against the real
 * PostgreSQL, with a short TTL: a run made slow on purpose (an injected slow step) lasts several TTLs and
 * keeps its lease (another process cannot take it), and a run whose lease is lost (its session ended) stops
 * before its next charge. Each "process" is a pool of its own, as two `--role worker` processes are.
 */

// Short enough for a test, long enough that a loaded CI machine's event loop never misses two beats.
const TTL_MS = 1000;

/** The event store of a worker whose appends are slow (a loaded database, a slow disk): the injected step. */
class SlowAppendStore extends PostgresEventStore {
  constructor(
    db: Kysely<Database>,
    private readonly delayMs: number,
  ) {
    super(db, inlineProjections);
  }
  override async append(...args: Parameters<PostgresEventStore['append']>) {
    await sleep(this.delayMs);
    return super.append(...args);
  }
}

describe('JobLease renewal (issue 23 item 2.11: a slow run keeps its lease, a lost lease stops it)', () => {
  let t: TestDatabase;
  const pools: DatabaseHandle[] = [];
  const processPool = () => {
    const handle = openDatabase({ url: t.url, poolSize: 4 });
    pools.push(handle);
    return handle.db;
  };

  beforeAll(async () => {
    t = await createTestDatabase({ poolSize: 4 });
  });
  afterAll(async () => {
    for (const p of pools) await p.close();
    await t.drop();
  });

  /** The backend holding the lease of `name`, by its advisory lock (waits up to 5 s for one). */
  async function holderPid(name: string): Promise<number> {
    const until = Date.now() + 5000;
    for (;;) {
      const { rows } = await sql<{ pid: number }>`
        select l.pid from pg_locks l
        where l.locktype = 'advisory' and l.granted and l.objsubid = 1
          and ((l.classid::bigint << 32) | l.objid::bigint) = ${JobLease.key(name)}::bigint`.execute(t.db);
      const pid = rows[0]?.pid;
      if (pid !== undefined) return pid;
      assert.ok(Date.now() < until, `nobody holds the lease of ${name}`);
      await sleep(20);
    }
  }

  /**
   * Tries the lease from another process every 100 ms while `running()`: how many tries got it while the job
   * still ran. A try that was answered after the job's last step can rightly win the lease its COMMIT just
   * released (the race CI saw once): only a win answered before that step means the lease lapsed.
   */
  async function probe(lease: JobLease, running: () => boolean): Promise<{ tries: number; won: number }> {
    let tries = 0;
    let won = 0;
    while (running()) {
      const got = await lease.run(async () => true);
      tries++;
      if (got.ran && running()) won++;
      await sleep(100);
    }
    return { tries, won };
  }

  /** `n` charges reserved long enough ago that the reconciler marks each `unknown`. */
  async function staleReservations(n: number, timeoutSeconds: number) {
    const start = new Date();
    const store = new PostgresEventStore(t.db, inlineProjections);
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = newId('txn');
      await handleCommand(
        { store, registry: createEventRegistry(), now: () => start },
        transaction,
        `transaction-${id}`,
        reserveCommand(id, 'pix_live'),
        { metadata: { actor: 'system:test', request_id: 'req_lease_renewal' } },
      );
      ids.push(id);
    }
    return { ids, at: new Date(start.getTime() + (timeoutSeconds + 1) * 1000) };
  }

  async function markedUnknown(ids: string[]): Promise<number> {
    const row = await t.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('id', 'in', ids)
      .where('status', '=', 'unknown')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  test('a job running three times its TTL keeps the lease: another process never gets it meanwhile', async () => {
    const holder = new JobLease(processPool(), 'slow-job', { ttlMs: TTL_MS });
    const other = new JobLease(processPool(), 'slow-job', { ttlMs: TTL_MS });
    let running = true;
    const held = holder.run(async () => {
      await sleep(TTL_MS * 3);
      running = false;
      return 'done';
    });
    await sleep(50);
    const tries = probe(other, () => running);
    const outcome = await held;
    const { tries: n, won } = await tries;
    assert.deepEqual(outcome, { ran: true, value: 'done' });
    assert.ok(n >= 10, `${n} tries during the run`);
    assert.equal(won, 0, 'the lease was taken by another process during a slow run');
    assert.deepEqual(await other.run(async () => 1), { ran: true, value: 1 }, 'free once the run ended');
  });

  test('a lost lease (its session ended) aborts the job and run rejects with LeaseLostError', async () => {
    const holder = new JobLease(processPool(), 'lost-job', { ttlMs: TTL_MS });
    let stoppedBy: unknown;
    const held = holder.run(
      (signal) =>
        new Promise<string>((resolve) => {
          signal.addEventListener('abort', () => {
            stoppedBy = signal.reason;
            resolve('stopped');
          });
          // A job that never sees the abort would run on beside the next holder.
          setTimeout(() => resolve('ran on'), 10_000);
        }),
    );
    held.catch(() => {});
    const pid = await holderPid('lost-job');
    const ended = Date.now();
    await sql`select pg_terminate_backend(${pid})`.execute(t.db);
    await assert.rejects(held, LeaseLostError);
    assert.ok(stoppedBy instanceof LeaseLostError, 'the job was told why it must stop');
    assert.ok(Date.now() - ended < TTL_MS * 2, `stopped ${Date.now() - ended} ms after the session ended`);
    assert.deepEqual(await new JobLease(processPool(), 'lost-job').run(async () => 2), {
      ran: true,
      value: 2,
    });
  });

  test('a reconciler tick slower than its TTL keeps the lease and marks every stale charge; another worker never takes it', async () => {
    const timeoutSeconds = 120;
    const { ids, at } = await staleReservations(8, timeoutSeconds);
    const db = processPool();
    const lease = new JobLease(db, 'reconciler', { ttlMs: TTL_MS });
    // 300 ms per append, 8 charges in one tick: about 2.4 s, over two TTLs.
    const reconciler = reconcileJob({ batchSize: 8, external: false });
    const deps = jobDeps(db, new SlowAppendStore(db, 300), {
      config: { RECONCILE_AFTER_SECONDS: timeoutSeconds },
    });
    let running = true;
    const tick = lease.run((signal) =>
      reconciler.run(deps, { now: at, signal }).finally(() => {
        running = false;
      }),
    );
    await sleep(50);
    const tries = probe(new JobLease(processPool(), 'reconciler', { ttlMs: TTL_MS }), () => running);
    const held = await tick;
    const { tries: n, won } = await tries;
    assert.ok(held.ran);
    assert.deepEqual([...held.value.marked].sort(), [...ids].sort());
    assert.ok(n >= 10, `${n} tries during the tick`);
    assert.equal(won, 0, 'a second reconciler got the lease during the slow tick');
  });

  test('a reconciler whose lease is lost mid-tick stops before its next charge (the loop logs LeaseLostError)', async () => {
    const timeoutSeconds = 120;
    const { ids, at } = await staleReservations(10, timeoutSeconds);
    const db = processPool();
    const failures: unknown[] = [];
    // A TTL longer than the time to mark two charges: here the lease is lost by its session ending (an
    // operator's pg_terminate_backend, a connection cut), not by lapsing; 400 ms per charge, 4 s in all.
    const deps = jobDeps(db, new SlowAppendStore(db, 400), {
      config: { RECONCILE_AFTER_SECONDS: timeoutSeconds, RECONCILE_INTERVAL_MS: 60_000 },
      logger: {
        info() {},
        warn() {},
        error(obj: unknown) {
          failures.push((obj as { err?: unknown }).err);
        },
      },
    });
    const reconciler = new JobRunner([reconcileJob({ batchSize: 10, external: false })], deps, {
      clock: { now: () => at },
      lease: (job) => new JobLease(db, job.name, { ttlMs: 1200 }),
    });
    reconciler.start();
    while ((await markedUnknown(ids)) < 2) await sleep(20);
    const atLoss = await markedUnknown(ids);
    const pid = await holderPid('reconciler');
    await sql`select pg_terminate_backend(${pid})`.execute(t.db);
    const until = Date.now() + 10_000;
    while (failures.length === 0 && Date.now() < until) await sleep(20);
    await reconciler.stop();
    const atFailure = await markedUnknown(ids);
    assert.ok(failures[0] instanceof LeaseLostError, String(failures[0]));
    // The charge in hand may finish, and one begun before the next beat found the session gone (a beat
    // every TTL / 3, 400 ms here); none after. A tick that went on would have marked all ten.
    assert.ok(
      atFailure - atLoss <= 2 && atFailure < ids.length,
      `${atLoss} marked when the lease was lost, ${atFailure} of ${ids.length} when the tick stopped`,
    );
    await sleep(600);
    assert.equal(await markedUnknown(ids), atFailure, 'nothing was marked after the tick stopped');
  });
});
