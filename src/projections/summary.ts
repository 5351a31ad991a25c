import { sql } from 'kysely';
import {
  STATUS_AFTER,
  saoPauloDate,
  type TransactionEvent,
  type TransactionReservedData,
  type TransactionStatus,
  transactionEvents,
} from '../aggregates/transaction.ts';
import { copyField, copyFromStdin } from '../db/copy-from-stdin.ts';
import type { RecordedEvent } from '../events/event-store.ts';
import type { Projection } from '../events/projection.ts';
import { droppableIndexes, recordset, setExcluded, updateGuarded } from './batch-sql.ts';
import { decodeTransactionEvent, TRANSACTION_EVENT_TYPES } from './transactions.ts';

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

/** The schema version new appends write, per event type. */
const CURRENT_VERSION = new Map<string, number>(transactionEvents.map((d) => [d.type, d.version]));

/**
 * The payload as the summary reads it. At the current schema version the stored payload is used as it is:
 * the log holds only payloads `encode` validated when they were appended, and the few fields read here
 * (ids, flags, amount, instants) have no defaults or transforms in their schemas, so a second zod pass
 * per event (about 7 % of a rebuild's CPU, issue 14 B4) would return the same values. An older version is
 * upcast and validated as before.
 */
function payloadOf(recorded: RecordedEvent): TransactionEvent['data'] {
  if (recorded.schemaVersion === CURRENT_VERSION.get(recorded.type) && typeof recorded.data === 'object')
    return recorded.data as TransactionEvent['data'];
  return decodeTransactionEvent(recorded).data;
}

/** A summary_transactions row, instants as ISO strings. */
interface SummaryRow {
  transaction_id: string;
  tenant_id: string;
  livemode: boolean;
  simulated: boolean;
  method: TransactionReservedData['method'];
  amount: number;
  status: TransactionStatus;
  created_at: string;
  created_day: string;
  paid_at: string | null;
  paid_day: string | null;
  updated_at: string;
  sequence: number;
}

function createdRow(d: TransactionReservedData, recorded: RecordedEvent): SummaryRow {
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
function changes(
  type: Exclude<TransactionEvent, Reserved>['type'],
  data: TransactionEvent['data'],
  recorded: RecordedEvent,
) {
  const status = STATUS_AFTER[type] ?? undefined;
  const paidAt = type === 'Transaction.Paid' ? new Date((data as { paid_at: string }).paid_at) : undefined;
  return {
    ...(status === undefined ? {} : { status }),
    ...(paidAt === undefined ? {} : { paid_at: paidAt.toISOString(), paid_day: saoPauloDate(paidAt) }),
    updated_at: recorded.recordedAt.toISOString(),
    sequence: recorded.version,
  };
}

/** A charge's events in one batch, folded in order (each guarded by its stream version, as `handle` is). */
interface Fold {
  reserved: { data: TransactionReservedData; recorded: RecordedEvent } | undefined;
  status: TransactionStatus | undefined;
  paidAt: string | undefined;
  last: RecordedEvent;
}

/**
 * A batch as the rows it writes: `created` for charges reserved in it (their later events of the batch
 * folded in), `changed` (only the columns set) for charges reserved earlier. Instants are converted once
 * per row, not per event.
 */
function foldBatch(events: readonly RecordedEvent[]): {
  created: SummaryRow[];
  changed: Record<string, unknown>[];
} {
  const folds = new Map<string, Fold>();
  for (const recorded of events) {
    const type = recorded.type as TransactionEvent['type'];
    const data = payloadOf(recorded);
    const id = data.transaction_id;
    const fold = folds.get(id);
    if (type === 'Transaction.Reserved') {
      if (!fold)
        folds.set(id, {
          reserved: { data: data as TransactionReservedData, recorded },
          status: undefined,
          paidAt: undefined,
          last: recorded,
        });
      // Once reserved in the batch, its row is the reservation's (a second one, as `handle`, does nothing).
      continue;
    }
    const status = STATUS_AFTER[type as Exclude<TransactionEvent['type'], Reserved['type']>] ?? undefined;
    const paidAt = type === 'Transaction.Paid' ? (data as { paid_at: string }).paid_at : undefined;
    if (!fold) folds.set(id, { reserved: undefined, status, paidAt, last: recorded });
    else if (recorded.version > fold.last.version) {
      if (status !== undefined) fold.status = status;
      if (paidAt !== undefined) fold.paidAt = paidAt;
      fold.last = recorded;
    }
  }
  const created: SummaryRow[] = [];
  const changed: Record<string, unknown>[] = [];
  for (const [id, fold] of folds) {
    const paid = fold.paidAt === undefined ? undefined : new Date(fold.paidAt);
    const last = fold.last;
    if (fold.reserved) {
      const row = createdRow(fold.reserved.data, fold.reserved.recorded);
      if (last !== fold.reserved.recorded) {
        if (fold.status !== undefined) row.status = fold.status;
        if (paid) {
          row.paid_at = paid.toISOString();
          row.paid_day = saoPauloDate(paid);
        }
        row.updated_at = last.recordedAt.toISOString();
        row.sequence = last.version;
      }
      created.push(row);
      continue;
    }
    changed.push({
      transaction_id: id,
      ...(fold.status === undefined ? {} : { status: fold.status }),
      ...(paid === undefined ? {} : { paid_at: paid.toISOString(), paid_day: saoPauloDate(paid) }),
      updated_at: last.recordedAt.toISOString(),
      sequence: last.version,
    });
  }
  return { created, changed };
}

/** summary_transactions' columns, the order of `copyLine`'s fields. */
const COLUMNS = [
  'transaction_id',
  'tenant_id',
  'livemode',
  'simulated',
  'method',
  'amount',
  'status',
  'created_at',
  'created_day',
  'paid_at',
  'paid_day',
  'updated_at',
  'sequence',
] as const;

/** A new row as one line of COPY's text format, in COLUMNS order. */
function copyLine(r: SummaryRow): string {
  return `${copyField(r.transaction_id)}\t${copyField(r.tenant_id)}\t${r.livemode}\t${r.simulated}\t${copyField(r.method)}\t${r.amount}\t${r.status}\t${r.created_at}\t${r.created_day}\t${copyField(r.paid_at)}\t${copyField(r.paid_day)}\t${r.updated_at}\t${r.sequence}\n`;
}

/**
 * The secondary indexes of migrations/0008_summary.ts, dropped by a rebuild from empty and built back at its
 * end. Keep in step with the migration.
 */
const secondaryIndexes = droppableIndexes('summary_transactions', {
  summary_transactions_tenant: '(tenant_id, livemode, created_at)',
  summary_transactions_created: '(livemode, created_at)',
});

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
      .set(changes(event.type, event.data, recorded))
      .where('transaction_id', '=', event.data.transaction_id)
      .where('sequence', '<', String(recorded.version))
      .execute();
  },

  /** The transactions projection's batch form: one fold per charge, one upsert, grouped guarded updates. */
  async handleBatch(events, trx) {
    const { created, changed } = foldBatch(events);
    if (created.length > 0) {
      await sql`
        insert into summary_transactions select * from ${recordset('summary_transactions', created)}
        on conflict (transaction_id) do update set ${setExcluded(['status', 'paid_at', 'paid_day', 'updated_at', 'sequence'])}
        where summary_transactions.sequence < excluded.sequence`.execute(trx);
    }
    if (changed.length > 0) await updateGuarded(trx, 'summary_transactions', 'transaction_id', changed);
  },

  /**
   * A rebuild from empty (`rebuildAll`, issue 14 B4), without the two secondary indexes (built once at
   * the end): a charge's reservation is the first event of its
   * stream and appears once in the log, so the pass meets each charge's row first as a new row, written
   * with COPY (about half PostgreSQL's CPU per row of the jsonb recordset; the rollup's statement triggers
   * fire for COPY as for an insert). A second reservation of one charge would fail the COPY on the primary
   * key, never write a different table. Later events of earlier charges are the guarded updates of
   * `handleBatch`. With a database that cannot COPY (PGlite), the batch form as it is.
   */
  bulkLoad: {
    async begin(trx, options) {
      await secondaryIndexes.drop(trx);
      if (!options?.copyFromStdin)
        return {
          handleBatch: (events, trx) => summaryProjection.handleBatch?.(events, trx) ?? Promise.resolve(),
        };
      return {
        async handleBatch(events, trx) {
          const { created, changed } = foldBatch(events);
          if (created.length > 0) {
            let lines = '';
            for (const r of created) lines += copyLine(r);
            await copyFromStdin('summary_transactions', COLUMNS, lines).execute(trx);
          }
          if (changed.length > 0) await updateGuarded(trx, 'summary_transactions', 'transaction_id', changed);
        },
      };
    },
    async restore(trx) {
      await secondaryIndexes.restore(trx);
    },
  },

  async reset(trx) {
    // Truncate fires no row or statement triggers of the rollup: it is emptied with its source.
    await sql`truncate summary_transactions, summary_daily`.execute(trx);
  },
};
