import { sql } from 'kysely';
import { saoPauloDate, type TransactionEvent } from '../aggregates/transaction.ts';
import { STATUS_AFTER } from '../aggregates/transaction-status.ts';
import type { RecordedEvent } from '../events/event-store.ts';
import { recordset, setExcluded, updateGuarded } from './batch-sql.ts';
import type { Projection } from './projection.ts';
import { changesOf, decodeTransactionEvent, TRANSACTION_EVENT_TYPES } from './transactions.ts';

/**
 * `summary_transactions` (migration 0008, docs/summary-tables.md): one row per charge, for
 * `GET /admin/summary` and for analysts. Async: it may trail the log by a moment. Triggers on the table keep
 * its daily rollup `summary_daily` (migration 0011) in the same statements; being async, this projection is
 * their only writer, one batch at a time, so no charge request contends on a rollup row.
 *
 * Every time comes from the events' payloads (`reserved_at`, `paid_at`) or recorded times, so a rebuild
 * reproduces the table exactly. Updates are conditioned on the stream version (`sequence < version`).
 */
type Reserved = Extract<TransactionEvent, { type: 'Transaction.Reserved' }>;

function createdRow(d: Reserved['data'], recorded: RecordedEvent) {
  const createdAt = new Date(d.reserved_at);
  return {
    transaction_id: d.transaction_id,
    tenant_id: d.tenant_id,
    livemode: d.livemode,
    simulated: d.simulated,
    method: d.method,
    amount: d.amount,
    status: STATUS_AFTER['Transaction.Reserved'],
    // Instants as ISO strings (the same instant; PostgreSQL reads either): a batch is one JSON.stringify,
    // where a Date's toJSON call is the costliest kind of field (rebuild, issue 14 B4).
    created_at: createdAt.toISOString(),
    created_day: saoPauloDate(createdAt),
    paid_at: null,
    paid_day: null,
    updated_at: recorded.recordedAt.toISOString(),
    sequence: recorded.version,
  };
}

/** What an event after the reservation sets (status, payment instant), with its version and time. */
function changes(event: Exclude<TransactionEvent, Reserved>, recorded: RecordedEvent) {
  const status = changesOf(event).status;
  const paidAt = event.type === 'Transaction.Paid' ? new Date(event.data.paid_at) : undefined;
  return {
    ...(status === undefined ? {} : { status }),
    ...(paidAt === undefined ? {} : { paid_at: paidAt.toISOString(), paid_day: saoPauloDate(paidAt) }),
    updated_at: recorded.recordedAt.toISOString(),
    sequence: recorded.version,
  };
}

export const summaryProjection: Projection = {
  name: 'summary',
  eventTypes: TRANSACTION_EVENT_TYPES,

  async handle(recorded, trx) {
    const event = decodeTransactionEvent(recorded);
    if (event.type === 'Transaction.Reserved') {
      await trx
        .insertInto('summary_transactions')
        .values(createdRow(event.data, recorded))
        .onConflict((oc) => oc.column('transaction_id').doNothing())
        .execute();
      return;
    }
    await trx
      .updateTable('summary_transactions')
      .set(changes(event, recorded))
      .where('transaction_id', '=', event.data.transaction_id)
      .where('sequence', '<', String(recorded.version))
      .execute();
  },

  /** The transactions projection's batch form: one fold per charge, one upsert, grouped guarded updates. */
  async handleBatch(events, trx) {
    const created = new Map<string, Record<string, unknown>>();
    const changed = new Map<string, Record<string, unknown>>();
    for (const recorded of events) {
      const event = decodeTransactionEvent(recorded);
      const id = event.data.transaction_id;
      if (event.type === 'Transaction.Reserved') {
        if (!created.has(id)) created.set(id, { ...createdRow(event.data, recorded) });
        continue;
      }
      const step = changes(event, recorded);
      const target = created.get(id) ?? changed.get(id);
      if (!target) changed.set(id, { transaction_id: id, ...step });
      else if (recorded.version > Number(target.sequence)) Object.assign(target, step);
    }
    if (created.size > 0) {
      await sql`
        insert into summary_transactions select * from ${recordset('summary_transactions', [...created.values()])}
        on conflict (transaction_id) do update set ${setExcluded(['status', 'paid_at', 'paid_day', 'updated_at', 'sequence'])}
        where summary_transactions.sequence < excluded.sequence`.execute(trx);
    }
    if (changed.size > 0) {
      await updateGuarded(trx, 'summary_transactions', 'transaction_id', [...changed.values()]);
    }
  },

  async reset(trx) {
    // Truncate fires no row or statement triggers of the rollup: it is emptied with its source.
    await sql`truncate summary_transactions, summary_daily`.execute(trx);
  },
};
