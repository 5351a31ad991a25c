import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { Config } from '../../../config.ts';
import type { Database } from '../../../db/schema.ts';

/**
 * Per-charge backoff of the reconciler's provider work (issue 13 items 7, 8). Both jobs pick their charges
 * oldest first and a failed read appends nothing, so a charge whose provider keeps failing stays the oldest
 * and, without this, is tried on every tick and can hold every slot of the batch. After a failed attempt the
 * charge waits `base * 2^(attempts - 1)` seconds, at most `max`, and the others proceed; a success (or
 * nothing left to do) forgets it. Stored in `reconcile_backoff` (migration 0017), keyed by job and charge.
 */

export type BackoffJob = 'provider_read' | 'pending_change';

export interface BackoffPolicy {
  /** The wait after the first failure in a row (RECONCILE_BACKOFF_SECONDS). */
  readonly baseSeconds: number;
  /** The longest wait (RECONCILE_BACKOFF_MAX_SECONDS). */
  readonly maxSeconds: number;
}

/** The configured policy; a maximum below the base is the base. */
export function backoffPolicyOf(
  config: Pick<Config, 'RECONCILE_BACKOFF_SECONDS' | 'RECONCILE_BACKOFF_MAX_SECONDS'>,
): BackoffPolicy {
  return {
    baseSeconds: config.RECONCILE_BACKOFF_SECONDS,
    maxSeconds: Math.max(config.RECONCILE_BACKOFF_SECONDS, config.RECONCILE_BACKOFF_MAX_SECONDS),
  };
}

/** Rows whose wait ended this long ago belong to charges settled elsewhere (a client's refresh): dropped. */
const FORGET_AFTER_SECONDS = 86_400;

/** The wait after `attempts` failures in a row (1 or more). */
export function backoffSeconds(policy: BackoffPolicy, attempts: number): number {
  const doublings = Math.min(Math.max(attempts - 1, 0), 30);
  return Math.min(policy.maxSeconds, policy.baseSeconds * 2 ** doublings);
}

export class ReconcileBackoff {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly job: BackoffJob,
    private readonly policy: BackoffPolicy,
  ) {}

  /** A filter for the job's candidate query: charges not waiting at `now`. */
  notWaiting(now: Date) {
    return (eb: ExpressionBuilder<Database, 'transactions'>) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('reconcile_backoff as b')
            .select('b.transaction_id')
            .whereRef('b.transaction_id', '=', 'transactions.id')
            .where('b.job', '=', this.job)
            .where('b.next_attempt_at', '>', now),
        ),
      );
  }

  /** After an attempt: a failure makes the charge wait longer, a success forgets it. */
  record(transactionId: string, settled: boolean, now: Date): Promise<void> {
    return settled ? this.succeeded(transactionId) : this.failed(transactionId, now);
  }

  /** One more failure in a row: the charge waits longer (one statement, so concurrent workers add up). */
  async failed(transactionId: string, now: Date): Promise<void> {
    const { baseSeconds, maxSeconds } = this.policy;
    await this.db
      .insertInto('reconcile_backoff')
      .values({
        job: this.job,
        transaction_id: transactionId,
        attempts: 1,
        next_attempt_at: new Date(now.getTime() + backoffSeconds(this.policy, 1) * 1000),
      })
      .onConflict((oc) =>
        oc.columns(['job', 'transaction_id']).doUpdateSet({
          attempts: sql`reconcile_backoff.attempts + 1`,
          // The stored count is the failures before this one: base * 2^count, capped (backoffSeconds).
          next_attempt_at: sql`${now}::timestamptz + make_interval(secs => least(${maxSeconds}::float8,
            ${baseSeconds}::float8 * power(2, least(reconcile_backoff.attempts, 30))))`,
        }),
      )
      .execute();
  }

  /** Settled, or nothing left to do: the charge starts afresh if it ever fails again. */
  async succeeded(transactionId: string): Promise<void> {
    await this.db
      .deleteFrom('reconcile_backoff')
      .where('job', '=', this.job)
      .where('transaction_id', '=', transactionId)
      .execute();
  }

  /** Drops rows of charges no longer attempted (their wait ended long ago). */
  async prune(now: Date): Promise<void> {
    await this.db
      .deleteFrom('reconcile_backoff')
      .where('job', '=', this.job)
      .where('next_attempt_at', '<', new Date(now.getTime() - FORGET_AFTER_SECONDS * 1000))
      .execute();
  }
}
