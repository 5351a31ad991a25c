import { sql } from 'kysely';
import { nextPollAt } from '../../../../aggregates/pix-automatic-debit-polling.ts';
import { transaction } from '../../../../aggregates/transaction.ts';
import type { EventMetadata } from '../../../../events/event-store.ts';
import type { CommandDeps } from '../../../command-handler.ts';
import { foldStream } from '../../../fold-stream.ts';
import type { JobDeps } from '../../../job.ts';
import { type RefreshOutcome, refreshAtProvider } from '../../../transactions/refresh/handler.ts';
import { transactionStream } from '../../../transactions/shared/stream.ts';

export interface PollRun {
  /** The poller's time (its Clock). */
  readonly now: Date;
  readonly batchSize: number;
  /** Debits asked at once within the batch. */
  readonly concurrency: number;
  /** How long a claimed row is kept from other runs while its debit is asked (a crashed worker's rows return after it). */
  readonly holdMs: number;
  readonly signal?: AbortSignal | undefined;
  readonly metadata: EventMetadata;
  /**
   * Only the debits of this test clock's subscriptions, at the clock's time (its advance polls them); absent:
   * every due debit, at the poller's time.
   */
  readonly testClockId?: string;
}

export interface PolledDebit {
  readonly transactionId: string;
  /** What the refresh did: applied (or nothing to apply), failed (502), reconciliation_required (no id). */
  readonly outcome: RefreshOutcome['kind'] | 'error';
  /** When it is asked next; null: no longer (final, or its 30 days are over). */
  readonly next: Date | null;
}

export interface PollResult {
  readonly claimed: number;
  readonly polled: readonly PolledDebit[];
}

/**
 * One run of the debit poller (SPEC 4.11, 8; issue 27 item 3): claims the due rows of
 * `pix_automatic_debit_polls` with FOR UPDATE SKIP LOCKED, pushing their `next_poll_at` past the hold in the
 * same statement so another worker skips them (two workers never ask about one debit at once), then refreshes
 * each through the transaction's own refresh path (refreshAtProvider -> the port's `queryDebit`), so events,
 * webhooks `transaction.updated` and the SPEC 3.1 table apply unchanged. The row then gets the pure
 * schedule's next instant (compare-and-set on the hold: a final event projected meanwhile, which empties
 * `next_poll_at`, wins), or null when the debit is final or its 30 days are over. An uncertain or failed
 * answer keeps the schedule: the next instant comes all the same. The due set comes from the partial index
 * `pix_automatic_debit_polls_due`, never a scan.
 */
export async function pollDueDebits(deps: JobDeps, run: PollRun): Promise<PollResult> {
  const held = new Date(run.now.getTime() + run.holdMs);
  const due =
    run.testClockId === undefined
      ? sql`select transaction_id from pix_automatic_debit_polls
          where next_poll_at is not null and next_poll_at <= ${run.now}
          order by next_poll_at limit ${run.batchSize} for update skip locked`
      : sql`select p.transaction_id from ${clockDebits(run.testClockId)}
          and p.next_poll_at <= ${run.now}
          order by p.next_poll_at limit ${run.batchSize} for update of p skip locked`;
  const { rows } = await sql<{ transaction_id: string; due_date: string }>`
    update pix_automatic_debit_polls set next_poll_at = ${held}
    where transaction_id in (${due})
    returning transaction_id, due_date`.execute(deps.db);
  const commandDeps: CommandDeps = { store: deps.store, registry: deps.events, now: () => run.now };
  const refresh = { deps: commandDeps, config: deps.config, adapters: deps };
  const queue = [...rows];
  const polled: PolledDebit[] = [];
  const work = async () => {
    for (let row = queue.shift(); row !== undefined; row = queue.shift()) {
      run.signal?.throwIfAborted();
      const id = row.transaction_id;
      let outcome: PolledDebit['outcome'] = 'error';
      let final = false;
      try {
        const state = await foldStream(commandDeps, transaction, transactionStream(id));
        if (state.status === 'none') {
          final = true;
        } else if (isFinal(state.status)) {
          final = true;
          outcome = 'applied';
        } else {
          const metadata = {
            ...run.metadata,
            tenant_id: state.reserved.tenant_id,
            livemode: state.reserved.livemode,
          };
          outcome = (await refreshAtProvider(refresh, state, metadata)).kind;
          const after = await foldStream(commandDeps, transaction, transactionStream(id));
          final = after.status === 'none' || isFinal(after.status);
        }
      } catch (error) {
        // One debit's failure (a production control refusing, a lost race) never stops the others.
        deps.logger.warn({ transaction_id: id, err: error }, 'pix automatic debit poll failed');
      }
      const next = final ? null : nextPollAt(row.due_date, run.now);
      await sql`update pix_automatic_debit_polls set next_poll_at = ${next}
        where transaction_id = ${id} and next_poll_at = ${held}`.execute(deps.db);
      polled.push({ transactionId: id, outcome, next });
    }
  };
  await Promise.all(Array.from({ length: Math.min(run.concurrency, queue.length) }, work));
  return { claimed: rows.length, polled };
}

/**
 * The open debits of a test clock's subscriptions (`p`), through their cycles: a `from … where` to go on
 * with `and`. Test mode only, a handful of rows; the real poller's path never joins.
 */
export function clockDebits(testClockId: string) {
  return sql`pix_automatic_debit_polls p
    join subscription_cycles c on c.transaction_id = p.transaction_id
    join subscriptions s on s.id = c.subscription_id
    where s.test_clock_id = ${testClockId} and p.next_poll_at is not null`;
}

function isFinal(status: string): boolean {
  return status === 'paid' || status === 'expired' || status === 'failed' || status === 'refunded';
}
