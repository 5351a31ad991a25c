import { DEFAULT_LEASE_TTL_MS, type Job, type JobOutcome } from '../../job.ts';
import { type DueResult, runDueSubscriptions } from './run-due.ts';

export interface SubscriptionSchedulerOptions {
  /** Pause between runs when nothing more is due (default SUBSCRIPTION_SCHEDULER_INTERVAL_MS: every minute). */
  intervalMs?: number;
  /** At most this many subscriptions per run (default 500). */
  batchSize?: number;
  /** Subscriptions advanced at once within a run (default 8; BENCHMARKS.md). */
  concurrency?: number;
  /** How long a claimed row is kept from other runs (default 1 minute, far longer than a batch takes). */
  holdMs?: number;
}

export interface SubscriptionSchedulerResult extends JobOutcome, DueResult {}

export const SCHEDULER_ACTOR = 'system:subscription-scheduler';

/**
 * The subscription scheduler (SPEC 4.10, 8; issue 26 item 4): every minute, the subscriptions on the system
 * clock whose next run is due are advanced (each cycle issued from `next_due_date − advance_days`, retried
 * every 15 minutes before reservation, skipped once overdue). Several workers may run it: rows are claimed
 * with SKIP LOCKED and each cycle is reserved once (`cycle-<subscription>-<due_date>`). `more` when the batch
 * was full, so the runner goes on at once.
 */
export function subscriptionSchedulerJob(
  opts: SubscriptionSchedulerOptions = {},
): Job<SubscriptionSchedulerResult> {
  const batchSize = opts.batchSize ?? 500;
  return {
    name: 'subscription-scheduler',
    intervalMs: (config) => opts.intervalMs ?? config.SUBSCRIPTION_SCHEDULER_INTERVAL_MS,
    leaseTtlMs: DEFAULT_LEASE_TTL_MS,
    async run(deps, { now, signal }) {
      const r = await runDueSubscriptions(deps, {
        now,
        testClockId: null,
        batchSize,
        concurrency: opts.concurrency ?? 8,
        holdMs: opts.holdMs ?? 60_000,
        signal,
        metadata: { actor: SCHEDULER_ACTOR },
      });
      return { ...r, more: r.claimed === batchSize };
    },
  };
}
