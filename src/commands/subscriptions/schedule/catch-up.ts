import { sql } from 'kysely';
import type { EventMetadata } from '../../../events/event-store.ts';
import type { JobDeps } from '../../job.ts';
import { clockDebits, pollDueDebits } from '../../pix-automatic/debits/poll/run-due.ts';
import { runDueSubscriptions } from './run-due.ts';

/** A bound on one catch-up: years of cycles with 15-minute retries fit; a bug never loops forever. */
const MAX_RUNS = 50_000;

/** The read models a catch-up reads besides `subscriptions` (whose schedule the scheduler writes itself). */
const READ = ['subscription_cycles', 'pix_automatic_debit_polls'];

/**
 * Runs a test clock's subscriptions through the time the clock just skipped (issue 26 item 6): from `from`
 * to `to`, each run at the earliest instant still due, so every cycle is issued, retried or skipped at the
 * moment it would have been on a real calendar, by the scheduler's own code (runDueSubscriptions), and every
 * Pix Automatic debit of them is polled on its schedule in the clock's time by the debit poller's own code
 * (pollDueDebits; issue 27 item 3: a simulated debit reads paid from its due date). A cycle in progress (due
 * at once) runs at the time reached so far.
 */
export async function catchUpTestClock(
  deps: JobDeps,
  input: {
    testClockId: string;
    from: Date;
    to: Date;
    metadata: EventMetadata;
    /** Async projections: waits for the named read models (AppContext `readModelsCaughtUp`). */
    readModelsCaughtUp?: ((names: readonly string[]) => Promise<void>) | undefined;
  },
): Promise<{ runs: number }> {
  let now = input.from;
  for (let runs = 0; runs < MAX_RUNS; runs++) {
    await input.readModelsCaughtUp?.(READ);
    const due = await sql<{ at: Date | null }>`
      select least(
        (select min(next_run_at) from subscriptions
          where test_clock_id = ${input.testClockId} and next_run_at is not null and next_run_at <= ${input.to}),
        (select min(p.next_poll_at) from ${clockDebits(input.testClockId)} and p.next_poll_at <= ${input.to})
      ) as at`.execute(deps.db);
    const at = due.rows[0]?.at ?? null;
    if (at === null) return { runs };
    if (at > now) now = at;
    // The debit poller and the scheduler run the same batch: the clock's rows due by `now`, nothing held.
    const run = {
      now,
      testClockId: input.testClockId,
      batchSize: 100,
      concurrency: 4,
      holdMs: 0,
      metadata: input.metadata,
    };
    await pollDueDebits(deps, run);
    const r = await runDueSubscriptions(deps, run);
    if (r.failed.length > 0) {
      throw new Error(
        `test clock ${input.testClockId}: subscriptions ${r.failed.join(', ')} failed to advance`,
      );
    }
  }
  throw new Error(`test clock ${input.testClockId}: more than ${MAX_RUNS} scheduler runs to catch up`);
}
