import { sql } from 'kysely';
import type { EventMetadata } from '../../../events/event-store.ts';
import type { JobDeps } from '../../job.ts';
import { type Advanced, advanceSubscription } from './advance.ts';

export interface DueRun {
  /** The scheduler's time: the system clock's, or a test clock's frozen time. */
  readonly now: Date;
  /** Whose subscriptions: null for those on the system clock, else one test clock's. */
  readonly testClockId: string | null;
  readonly batchSize: number;
  /** Subscriptions advanced at once within the batch. */
  readonly concurrency: number;
  /** How long a claimed row is kept from other runs while it is advanced (a crashed worker's rows return after it). */
  readonly holdMs: number;
  readonly signal?: AbortSignal | undefined;
  readonly metadata: EventMetadata;
}

export interface DueResult {
  readonly claimed: number;
  readonly advanced: ReadonlyArray<{ readonly subscriptionId: string } & Advanced>;
  readonly failed: readonly string[];
}

/**
 * Claims the due rows of the `subscriptions` read model (`next_run_at` reached) with FOR UPDATE SKIP LOCKED,
 * pushing their `next_run_at` past the hold in the same statement so that another worker skips them, then
 * advances each (./advance.ts) with bounded concurrency. The due set comes from a partial index
 * (`subscriptions_due` for the system clock, `subscriptions_clock_due` per test clock), never a scan.
 * A row whose subscription had nothing to do gets its computed next run back at once (compare-and-set on the
 * hold, so a projection's newer value wins).
 */
export async function runDueSubscriptions(deps: JobDeps, run: DueRun): Promise<DueResult> {
  const held = new Date(run.now.getTime() + run.holdMs);
  const clock =
    run.testClockId === null ? sql`test_clock_id is null` : sql`test_clock_id = ${run.testClockId}`;
  const { rows } = await sql<{ id: string }>`
    update subscriptions set next_run_at = ${held}
    where id in (
      select id from subscriptions
      where ${clock} and next_run_at is not null and next_run_at <= ${run.now}
      order by next_run_at limit ${run.batchSize} for update skip locked)
    returning id`.execute(deps.db);
  const ctx = { ...deps, now: () => run.now };
  const rowWrittenByAppend = subscriptionRowsInline(deps);
  const queue = rows.map((r) => r.id);
  const advanced: Array<{ subscriptionId: string } & Advanced> = [];
  const failed: string[] = [];
  const work = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      run.signal?.throwIfAborted();
      try {
        const r = await advanceSubscription(ctx, id, run.now, run.metadata);
        advanced.push({ subscriptionId: id, ...r });
        // An inline projection that saw the stream grow has replaced the hold already: the compare-and-set
        // below could only miss (issue 26 item 8: one round trip and one commit less per cycle).
        if (!(r.streamGrew && rowWrittenByAppend)) {
          await sql`update subscriptions set next_run_at = ${r.nextRunAt}
            where id = ${id} and next_run_at = ${held}`.execute(deps.db);
        }
      } catch (error) {
        // One subscription's failure never stops the others; its row returns after the hold.
        failed.push(id);
        deps.logger.warn({ subscription_id: id, err: error }, 'subscription scheduling failed');
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(run.concurrency, queue.length) }, work));
  return { claimed: rows.length, advanced, failed };
}

/**
 * Whether every append to a subscription's stream writes its `subscriptions` row (with `next_run_at`) in the
 * append's own transaction: the PostgreSQL store with inline projections (the subscriptions feature declares
 * its projection inline: ../feature.ts; src/app.ts `inlineProjectionsOf`). Async projections (and
 * EventStoreDB) write it later, so the scheduler's compare-and-set is what moves the row off its hold.
 */
function subscriptionRowsInline(deps: JobDeps): boolean {
  return deps.store.supportsInlineProjections && deps.config.PROJECTIONS !== 'async';
}
