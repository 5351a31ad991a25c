import { DEFAULT_LEASE_TTL_MS, type Job, type JobOutcome } from '../../../job.ts';
import { type PollResult, pollDueDebits } from './run-due.ts';

export const DEBIT_POLLER_ACTOR = 'system:pix-automatic-debit-poller';

export interface DebitPollerOptions {
  /** Pause between runs when nothing more is due (default every minute: the schedule's finest step is 5). */
  intervalMs?: number;
  /** At most this many debits per run (default 200). */
  batchSize?: number;
  /** Debits asked at once within a run (default 8). */
  concurrency?: number;
  /** How long a claimed row is kept from other runs (default 2 minutes, beyond a provider call's timeout). */
  holdMs?: number;
}

export interface DebitPollerResult extends JobOutcome, PollResult {}

/**
 * The Pix Automatic debit poller (SPEC 4.11, 8; issue 27 item 3): "after a debit's due date, the service
 * confirms payment with the provider every 5 minutes for 3 days, then hourly up to 30 days; the result
 * arrives as `transaction.updated`". Runs under its lease; several workers are safe (rows claimed with SKIP
 * LOCKED and held). `more` when the batch was full, so the runner goes on at once.
 */
export function debitPollerJob(opts: DebitPollerOptions = {}): Job<DebitPollerResult> {
  const batchSize = opts.batchSize ?? 200;
  return {
    name: 'pix-automatic-debit-poller',
    intervalMs: () => opts.intervalMs ?? 60_000,
    leaseTtlMs: DEFAULT_LEASE_TTL_MS,
    async run(deps, { now, signal }) {
      const r = await pollDueDebits(deps, {
        now,
        batchSize,
        concurrency: opts.concurrency ?? 8,
        holdMs: opts.holdMs ?? 120_000,
        signal,
        metadata: { actor: DEBIT_POLLER_ACTOR },
      });
      return { ...r, more: r.claimed === batchSize };
    },
  };
}
