import { sql } from 'kysely';
import { firstPollAt } from '../aggregates/pix-automatic-debit-polling.ts';
import {
  STATUS_AFTER,
  type TransactionEventType,
  type TransactionStatus,
} from '../aggregates/transaction.ts';
import type { Projection } from '../events/projection.ts';
import { decodeTransactionEvent } from './transactions.ts';

/** SPEC 3.1 final states: a debit in one of them is never polled again (SPEC 4.11). */
const FINAL: readonly TransactionStatus[] = ['paid', 'expired', 'failed', 'refunded'];

/** The events that leave a charge final. */
const FINAL_EVENTS = (Object.keys(STATUS_AFTER) as TransactionEventType[]).filter((type) => {
  const status = STATUS_AFTER[type];
  return status !== null && FINAL.includes(status);
});

/**
 * The Pix Automatic debit poller's schedule (SPEC 4.11, 8; issue 27 item 3): `pix_automatic_debit_polls`,
 * one row per debit, written when the debit is reserved (first poll at the start of its due date, the pure
 * schedule's `firstPollAt`) and taken off the due set (`next_poll_at` null) when an event leaves the charge
 * final. Between the two the poller's job (src/commands/pix-automatic/debits/poll/job.ts) owns
 * `next_poll_at`: it claims due rows and writes the schedule's next instant back (compare-and-set on its
 * hold, so a final event projected meanwhile wins). A rebuild starts every open debit at its first poll
 * again: the grid is anchored at the due date, so the job only polls it once at the current instant and goes
 * on from there.
 */
export const pixAutomaticDebitPollsProjection: Projection = {
  name: 'pix_automatic_debit_polls',
  eventTypes: ['Transaction.Reserved', ...FINAL_EVENTS],
  async handle(recorded, trx) {
    const event = decodeTransactionEvent(recorded);
    if (event.type === 'Transaction.Reserved') {
      const d = event.data;
      if (d.pix_automatic_authorization_id === undefined || d.scheduled_due_date === undefined) return;
      await trx
        .insertInto('pix_automatic_debit_polls')
        .values({
          transaction_id: d.transaction_id,
          authorization_id: d.pix_automatic_authorization_id,
          tenant_id: d.tenant_id,
          livemode: d.livemode,
          due_date: d.scheduled_due_date,
          next_poll_at: firstPollAt(d.scheduled_due_date),
        })
        .onConflict((oc) => oc.column('transaction_id').doNothing())
        .execute();
      return;
    }
    // Any final event of any charge: only a debit has a row (one primary-key probe otherwise).
    await trx
      .updateTable('pix_automatic_debit_polls')
      .set({ next_poll_at: null })
      .where('transaction_id', '=', event.data.transaction_id)
      .where('next_poll_at', 'is not', null)
      .execute();
  },
  async reset(trx) {
    await sql`truncate pix_automatic_debit_polls`.execute(trx);
  },
};
