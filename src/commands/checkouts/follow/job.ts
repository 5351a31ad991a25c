import { sql } from 'kysely';
import { DEFAULT_LEASE_TTL_MS, type Job, type JobOutcome } from '../../job.ts';
import { advanceCheckout } from './advance.ts';
import { refreshLapsedPix } from './lapsed-pix.ts';

export interface CheckoutFollowOptions {
  /** Pause between runs when nothing more is due (default 5 s). */
  intervalMs?: number;
  /** At most this many checkouts per run (default 100). */
  batchSize?: number;
}

export interface CheckoutFollowResult extends JobOutcome {
  /** The checkouts this run looked at. */
  followed: string[];
}

const ACTOR = 'system:checkout-follow';

/**
 * The checkouts' clock-driven work (DESIGN.md "Feature modules"; docs/decisions.md "Hosted checkout"): claims
 * the due rows of the `checkouts` read model (`next_check_at` reached: an open checkout's deadline, or a
 * pending charge to look at) with FOR UPDATE SKIP LOCKED, pushing each row's next look one interval ahead
 * in the same statement, then refreshes each one's Pix left pending past its deadline (./lapsed-pix.ts) and
 * advances it from its charges and deadline (./advance.ts). Its time is the run's `now` only.
 */
export function checkoutFollowJob(opts: CheckoutFollowOptions = {}): Job<CheckoutFollowResult> {
  const batchSize = opts.batchSize ?? 100;
  const intervalMs = opts.intervalMs ?? 5_000;
  return {
    name: 'checkout-follow',
    intervalMs: () => intervalMs,
    leaseTtlMs: DEFAULT_LEASE_TTL_MS,
    async run(app, { now, signal }) {
      const next = new Date(now.getTime() + intervalMs);
      const { rows } = await sql<{ id: string }>`
        update checkouts set next_check_at = ${next}
        where id in (
          select id from checkouts where next_check_at <= ${now}
          order by next_check_at limit ${batchSize} for update skip locked)
        returning id`.execute(app.db);
      const followed: string[] = [];
      for (const { id } of rows) {
        signal?.throwIfAborted();
        try {
          await refreshLapsedPix(app, id, now, ACTOR);
          await advanceCheckout(app, id, now, { actor: ACTOR });
          followed.push(id);
        } catch (error) {
          // One checkout's failure never stops the others; it is looked at again next interval.
          app.logger.warn({ checkout_id: id, err: error }, 'checkout follow failed');
        }
      }
      return { more: rows.length === batchSize, followed };
    },
  };
}
