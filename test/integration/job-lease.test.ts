import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { transaction } from '../../src/aggregates/transaction.ts';
import { handleCommand } from '../../src/commands/command-handler.ts';
import { createEventRegistry, inlineProjections } from '../../src/commands/index.ts';
import { reconcileJob } from '../../src/commands/transactions/reconcile/job.ts';
import { type DatabaseHandle, openDatabase } from '../../src/db/database.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { newId } from '../../src/ids.ts';
import { JobRunner } from '../../src/workers/job-runner.ts';
import { JobLease } from '../../src/workers/lease.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { jobDeps } from '../support/jobs.ts';
import { reserveCommand } from '../support/transactions.ts';

/**
 * Issue 14 "Two processes, one database": the reconciler's lease (src/workers/lease.ts) against the real
 * PostgreSQL. Each "process" is a pool of its own (separate sessions), as two `--role worker` processes are.
 */

/** A promise and the function that settles it: a job that runs until the test lets it finish. */
function gate(): { opened: Promise<void>; open(): void } {
  let open = () => {};
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { opened, open };
}

describe('JobLease (issue 14: one job, several worker processes)', () => {
  let t: TestDatabase;
  const pools: DatabaseHandle[] = [];
  /** Another process's connection pool on the same database. */
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

  test('two runners, one job: while one holds the lease the other skips its tick; then it gets it', async () => {
    const a = new JobLease(processPool(), 'job-one');
    const b = new JobLease(processPool(), 'job-one');
    const running = gate();
    const release = gate();
    const first = a.run(async () => {
      running.open();
      await release.opened;
      return 'a';
    });
    await running.opened;
    let bRan = false;
    const second = await b.run(async () => {
      bRan = true;
      return 'b';
    });
    assert.deepEqual(second, { ran: false });
    assert.equal(bRan, false, 'the job is not started while another process holds the lease');
    release.open();
    assert.deepEqual(await first, { ran: true, value: 'a' });
    assert.deepEqual(await b.run(async () => 'b'), { ran: true, value: 'b' }, 'released at the tick end');
  });

  test('leases of different jobs do not exclude each other', async () => {
    const release = gate();
    const running = gate();
    const held = new JobLease(processPool(), 'job-x').run(async () => {
      running.open();
      await release.opened;
    });
    await running.opened;
    assert.deepEqual(await new JobLease(processPool(), 'job-y').run(async () => 1), { ran: true, value: 1 });
    release.open();
    await held;
  });

  test('a job that throws releases the lease (rolled back with its transaction)', async () => {
    const a = new JobLease(processPool(), 'job-throws');
    await assert.rejects(
      a.run(async () => {
        throw new Error('tick failed');
      }),
      /tick failed/,
    );
    assert.deepEqual(await new JobLease(processPool(), 'job-throws').run(async () => 2), {
      ran: true,
      value: 2,
    });
  });

  test('the holder is named in pg_stat_activity; when its session dies (SIGKILL) the lease is free at once', async () => {
    const holderDb = processPool();
    const running = gate();
    const never = gate();
    const held = new JobLease(holderDb, 'job-killed').run(async () => {
      running.open();
      await never.opened;
    });
    held.catch(() => {}); // its session is terminated below: the holder's transaction fails
    await running.opened;
    const { rows } = await sql<{ pid: number; application_name: string }>`
      select a.pid, a.application_name from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'advisory' and l.granted and l.objsubid = 1
        and ((l.classid::bigint << 32) | l.objid::bigint) = ${JobLease.key('job-killed')}::bigint`.execute(
      t.db,
    );
    assert.equal(rows.length, 1, 'exactly one backend holds the lease');
    assert.equal(rows[0]?.application_name, JobLease.holderName('job-killed'));
    // What the kernel does to a killed worker's sockets: the server ends that session.
    await sql`select pg_terminate_backend(${rows[0]?.pid})`.execute(t.db);
    assert.deepEqual(await new JobLease(processPool(), 'job-killed').run(async () => 3), {
      ran: true,
      value: 3,
    });
    never.open();
    await assert.rejects(held);
  });

  test('two reconcilers (two processes) on stale reservations: their ticks never overlap; one Transaction.Unconfirmed per charge', async () => {
    const timeoutSeconds = 120;
    const start = new Date();
    const at = new Date(start.getTime() + (timeoutSeconds + 1) * 1000);
    const store = new PostgresEventStore(t.db, inlineProjections);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const id = newId('txn');
      await handleCommand(
        { store, registry: createEventRegistry(), now: () => start },
        transaction,
        `transaction-${id}`,
        reserveCommand(id, 'pix_live'),
        { metadata: { actor: 'system:test', request_id: 'req_lease' } },
      );
      ids.push(id);
    }
    // Instrumented leases: count ticks inside the lease across both processes.
    let inside = 0;
    let most = 0;
    let ticks = 0;
    class CountingLease extends JobLease {
      override run<T>(job: (signal: AbortSignal) => Promise<T>) {
        return super.run(async (signal) => {
          inside++;
          ticks++;
          most = Math.max(most, inside);
          try {
            return await job(signal);
          } finally {
            inside--;
          }
        });
      }
    }
    const reconcilers = [processPool(), processPool()].map(
      (db) =>
        new JobRunner(
          // One charge per tick: the job spans many ticks, each on whichever worker holds the lease.
          [reconcileJob({ batchSize: 1, external: false })],
          jobDeps(db, new PostgresEventStore(db, inlineProjections), {
            config: { RECONCILE_AFTER_SECONDS: timeoutSeconds, RECONCILE_INTERVAL_MS: 1 },
          }),
          { clock: { now: () => at }, lease: (job) => new CountingLease(db, job.name) },
        ),
    );
    for (const r of reconcilers) r.start();
    const unresolved = async () =>
      Number(
        (
          await t.db
            .selectFrom('transactions')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('id', 'in', ids)
            .where('status', '=', 'processing')
            .executeTakeFirstOrThrow()
        ).n,
      );
    while ((await unresolved()) > 0) await new Promise((r) => setTimeout(r, 20));
    await Promise.all(reconcilers.map((r) => r.stop()));

    assert.equal(most, 1, 'never two reconciler ticks at once');
    assert.ok(ticks >= ids.length, `${ticks} ticks under the lease`);
    for (const id of ids) {
      assert.deepEqual(
        (await store.read(`transaction-${id}`)).map((e) => e.type),
        ['Transaction.Reserved', 'Transaction.Unconfirmed'],
      );
    }
  });
});
