import { type Kysely, sql } from 'kysely';
import { DEFAULT_LEASE_TTL_MS } from '../commands/job.ts';
import type { Database } from '../db/schema.ts';

/** The lease ended while its job ran (its session was ended, or a heartbeat failed): the job was stopped. */
export class LeaseLostError extends Error {
  constructor(name: string, cause: unknown) {
    super(`the lease of job ${name} was lost during its run`, { cause });
    this.name = 'LeaseLostError';
  }
}

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
 *   ends its session after `ttlMs` without a statement, and the lease is free again;
 * - a heartbeat renews it (issue 23 item 2.11): every `ttlMs / 3` the holder runs a statement on the lease's
 *   connection, which restarts that idle clock, so a slow tick (a provider answering slowly, a long batch)
 *   keeps its lease for as long as its process is alive and responsive, instead of losing it at `ttlMs` to a
 *   second worker that would then run the same work beside it. Two missed beats in a row are tolerated;
 * - a lost lease stops the run: when a heartbeat fails (the session was ended: frozen past `ttlMs`, killed
 *   by an operator, a lost connection), the job's `AbortSignal` is aborted with a `LeaseLostError`; the job
 *   checks it between units of work (the reconciler between charges) and `run` rejects with that error, so
 *   no tick goes on working beside the worker that took the lease over. The work itself stays safe to run
 *   twice (the reconciler appends with an expected version); the lease keeps it from happening in the
 *   normal course.
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
    this.ttlMs = opts.ttlMs ?? DEFAULT_LEASE_TTL_MS;
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
   * queries use other connections of the pool (the lease's connection only carries the heartbeat). Rejects
   * with `LeaseLostError` when the lease was lost during the run (`signal` was aborted then).
   */
  async run<T>(job: (signal: AbortSignal) => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    const lost = new AbortController();
    try {
      return await this.db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ locked: boolean }>`
          select set_config('idle_in_transaction_session_timeout', ${String(this.ttlMs)}, true),
            set_config('application_name', ${JobLease.holderName(this.name)}, true),
            pg_try_advisory_xact_lock(${JobLease.key(this.name)}) as locked`.execute(trx);
        if (!rows[0]?.locked) return { ran: false } as const;
        const heartbeat = this.heartbeat(() => sql`select 1`.execute(trx), lost);
        try {
          const value = await job(lost.signal);
          lost.signal.throwIfAborted();
          return { ran: true, value } as const;
        } finally {
          await heartbeat.stop();
        }
      });
    } catch (error) {
      // Once the session is gone, ROLLBACK fails too: the caller is told the lease was lost, not that.
      if (lost.signal.aborted) throw lost.signal.reason;
      throw error;
    }
  }

  /** Beats every `ttlMs / 3` until stopped; a failed beat aborts `lost`. One beat at a time. */
  private heartbeat(beat: () => Promise<unknown>, lost: AbortController): { stop(): Promise<void> } {
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    let inFlight: Promise<void> = Promise.resolve();
    const schedule = () => {
      timer = setTimeout(
        () => {
          inFlight = beat().then(
            () => {
              if (!stopped) schedule();
            },
            (err: unknown) => lost.abort(new LeaseLostError(this.name, err)),
          );
        },
        Math.max(1, Math.floor(this.ttlMs / 3)),
      );
    };
    schedule();
    return {
      async stop() {
        stopped = true;
        clearTimeout(timer);
        // COMMIT must not overtake a beat on the same connection.
        await inFlight;
      },
    };
  }
}
