import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.ts';

/**
 * A cluster-wide lease on a named background job (issue 14 "Two processes, one database"): with several
 * `--role worker` processes on one PostgreSQL, one tick of the job runs on at most one of them at a time.
 *
 * The lease is a transaction-scoped advisory lock (`pg_try_advisory_xact_lock`) taken on a connection of
 * its own and held while the job runs on the pool's other connections; the transaction ends with the tick,
 * which releases it. Why this shape:
 * - no table and no migration, and nothing to clean up: a holder that dies (SIGKILL, lost host) loses its
 *   session, and PostgreSQL releases the lock at once, so another worker takes the next tick;
 * - transaction-scoped, never session-scoped: whatever happens to the tick, COMMIT or ROLLBACK releases it,
 *   so a pooled connection can never go back to the pool still holding the lock;
 * - `try`: a worker that finds the lease taken skips its tick instead of queueing behind it (the holder is
 *   doing the work already);
 * - `idle_in_transaction_session_timeout` bounds a frozen holder (SIGSTOP, a stuck event loop): PostgreSQL
 *   ends its session after `ttlMs` without a statement, and the lease is free again. A tick must therefore
 *   finish within `ttlMs`; the jobs that use it are still safe to run twice (the reconciler appends with an
 *   expected version), the lease only keeps them from doing so in the normal course.
 * - `application_name` names the holding process while it holds the lease, so an operator (and the F7
 *   chaos scenario) sees who has it in `pg_stat_activity`.
 *
 * The key is namespaced like the projection runner's (`calebe:projection:<name>`), so they never collide.
 * PostgreSQL only: PGlite has a single connection and a single process per data directory.
 */
export class JobLease {
  readonly name: string;
  private readonly ttlMs: number;

  constructor(
    private readonly db: Kysely<Database>,
    name: string,
    opts: { ttlMs?: number } = {},
  ) {
    this.name = name;
    this.ttlMs = opts.ttlMs ?? 300_000;
  }

  /** The advisory-lock key, as SQL (`hashtext` of the namespaced name). */
  static key(name: string) {
    return sql<number>`hashtext(${`calebe:job:${name}`})`;
  }

  /** The `application_name` of a connection holding the lease of `name`. */
  static holderName(name: string, pid: number = process.pid): string {
    return `calebe job lease ${name} pid=${pid}`;
  }

  /**
   * Runs `job` if this process gets the lease; `{ ran: false }` when another holds it. The job's own
   * queries use other connections of the pool (the lease's connection stays idle in its transaction).
   */
  async run<T>(job: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    return this.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ locked: boolean }>`
        select set_config('idle_in_transaction_session_timeout', ${String(this.ttlMs)}, true),
          set_config('application_name', ${JobLease.holderName(this.name)}, true),
          pg_try_advisory_xact_lock(${JobLease.key(this.name)}) as locked`.execute(trx);
      if (!rows[0]?.locked) return { ran: false };
      return { ran: true, value: await job() };
    });
  }
}
