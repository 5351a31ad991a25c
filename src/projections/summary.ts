import { sql } from 'kysely';
import { saoPauloDate, type TransactionEvent, transactionEvents } from '../aggregates/transaction.ts';
import { EventRegistry } from '../events/event-registry.ts';
import type { Projection } from './projection.ts';
import { changesOf, TRANSACTION_EVENT_TYPES } from './transactions.ts';

const registry = new EventRegistry(transactionEvents);

/**
 * `summary_transactions` (migration 0008, docs/summary-tables.md): one row per charge, for
 * `GET /admin/summary` and for analysts. Async: it may trail the log by a moment. One row per charge and no
 * per-tenant counters, so charges of one tenant never contend on a row (DESIGN.md "Avoid hot rows").
 *
 * Every time comes from the events' payloads (`reserved_at`, `paid_at`) or recorded times, so a rebuild
 * reproduces the table exactly. Updates are conditioned on the stream version (`sequence < version`).
 */
export const summaryProjection: Projection = {
  name: 'summary',
  eventTypes: TRANSACTION_EVENT_TYPES,

  async handle(recorded, trx) {
    const event = registry.decode(recorded) as TransactionEvent;
    if (event.type === 'Transaction.Reserved') {
      const d = event.data;
      const createdAt = new Date(d.reserved_at);
      await trx
        .insertInto('summary_transactions')
        .values({
          transaction_id: d.transaction_id,
          tenant_id: d.tenant_id,
          livemode: d.livemode,
          simulated: d.simulated,
          method: d.method,
          amount: d.amount,
          status: 'processing',
          created_at: createdAt,
          created_day: saoPauloDate(createdAt),
          paid_at: null,
          paid_day: null,
          updated_at: recorded.recordedAt,
          sequence: recorded.version,
        })
        .onConflict((oc) => oc.column('transaction_id').doNothing())
        .execute();
      return;
    }
    const status = changesOf(event).status;
    const paidAt = event.type === 'Transaction.Paid' ? new Date(event.data.paid_at) : undefined;
    await trx
      .updateTable('summary_transactions')
      .set({
        ...(status === undefined ? {} : { status }),
        ...(paidAt === undefined ? {} : { paid_at: paidAt, paid_day: saoPauloDate(paidAt) }),
        updated_at: recorded.recordedAt,
        sequence: recorded.version,
      })
      .where('transaction_id', '=', event.data.transaction_id)
      .where('sequence', '<', String(recorded.version))
      .execute();
  },

  async reset(trx) {
    await sql`truncate summary_transactions`.execute(trx);
  },
};
