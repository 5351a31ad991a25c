import { type Insertable, type Selectable, sql } from 'kysely';
import {
  STATUS_AFTER,
  statusAfter,
  type TransactionEvent,
  type TransactionFacts,
  transactionEvents,
} from '../aggregates/transaction.ts';
import { storedDocumentSignature } from '../charge-page/stored-signature.ts';
import type { CardColumn, TransactionRequestsTable, TransactionsTable } from '../db/schema.ts';
import { q, type SqlText } from '../db/sql-text.ts';
import { EventRegistry } from '../events/event-registry.ts';
import type { RecordedEvent } from '../events/event-store.ts';
import type { Projection } from '../events/projection.ts';
import { defined, recordset, setExcluded, updateGuarded } from './batch-sql.ts';
import { type RowChanges, updateInOrder } from './update-in-order.ts';

// Payloads are decoded (upcast and validated) before use, as deciders see them.
const registry = new EventRegistry(transactionEvents);
const decodedEvents = new WeakMap<RecordedEvent, TransactionEvent>();

/**
 * Decodes (upcasts and validates) a transaction event once, however many projections read the same
 * recorded event in a batch (transactions, summary, webhook outbox). The result is shared: never mutate it.
 */
export function decodeTransactionEvent(recorded: RecordedEvent): TransactionEvent {
  let event = decodedEvents.get(recorded);
  if (!event) {
    event = registry.decode(recorded) as TransactionEvent;
    decodedEvents.set(recorded, event);
  }
  return event;
}

/** Every column but the key and created_at: what a replayed creation may bring up to date. */
const UPSERT_COLUMNS = [
  'tenant_id',
  'livemode',
  'method',
  'status',
  'amount',
  'currency',
  'reference',
  'description',
  'simulated',
  'environment',
  'provider_id',
  'subaccount_id',
  'provider_reference',
  'cost_center_id',
  'callback_url',
  'pix_copy_paste',
  'pix_qr_code',
  'expires_at',
  'boleto_due_date',
  'boleto_url',
  'boleto_digitable_line',
  'boleto_barcode',
  'boleto_pix_copy_paste',
  'boleto_pix_expires_at',
  'failure_code',
  'provider_error_code',
  'provider_error_message',
  'provider_http_status',
  'paid_with',
  'paid_at',
  'duplicate_payment_at',
  'refund_status',
  'credit_card',
  'card_id',
  'document_signature',
  'duplicate_refund',
  'pending_due_date',
  'refund_route',
  'refund_transfer_id',
  'pix_automatic_authorization_id',
  'scheduled_due_date',
  'fees',
  'sequence',
  'updated_at',
] as const satisfies readonly (keyof TransactionsTable)[];

export const TRANSACTION_EVENT_TYPES = transactionEvents.map((d) => d.type);

/**
 * The `transactions` and `transaction_requests` read models (SPEC 2.2, 2.3, 4.3). Inline: a charge is visible
 * to API reads as soon as its append commits. `sequence` is the stream version of the last applied event;
 * every update is conditioned on it (`sequence < version`), so replaying an event changes nothing.
 * Timestamps are the events' recorded times (created_at, updated_at) or the decided instants the events
 * carry (paid_at, expires_at), so a rebuild reproduces them exactly.
 */
export const transactionsProjection: Projection = {
  name: 'transactions',
  eventTypes: TRANSACTION_EVENT_TYPES,

  async handle(recorded, trx) {
    const event = decodeTransactionEvent(recorded);
    if (event.type === 'Transaction.Reserved') {
      const d = event.data;
      // One statement (BENCHMARKS.md "HTTP create and replay", lever a): the row and its snapshot. A
      // data-modifying CTE always runs to completion whether or not the outer insert reads it, so each
      // insert happens (or meets its conflict) independently, exactly as two statements would.
      await trx
        .with('charge', (db) =>
          db
            .insertInto('transactions')
            .values(reservedRow(d, recorded))
            .onConflict((oc) => oc.column('id').doNothing())
            .returning('id'),
        )
        .insertInto('transaction_requests')
        .values(requestRow(d, recorded))
        .onConflict((oc) => oc.column('transaction_id').doNothing())
        .execute();
      return;
    }
    await updateInOrder(trx, 'transactions', recorded, event.data.transaction_id, changesOf(event));
  },

  /** `handle` as CTEs of the append's statement (issue 14; see Projection.fused): same rows, same guards. */
  fused(recorded, written) {
    const event = decodeTransactionEvent(recorded);
    written.set('transactions', 'tx_row');
    if (event.type === 'Transaction.Reserved') {
      const d = event.data;
      const { created_at: _c, updated_at: _u, ...row } = defined(reservedRow(d, recorded));
      const { created_at: _r, ...request } = defined(requestRow(d, recorded));
      return [
        q`tx_row as (insert into transactions (${columnsOf(row)}, created_at, updated_at)
          select ${valuesOf(row)}, ins.recorded_at, ins.recorded_at from ins
          on conflict (id) do nothing returning transactions.*)`,
        q`tx_request as (insert into transaction_requests (${columnsOf(request)}, created_at)
          select ${valuesOf(request)}, ins.recorded_at from ins
          on conflict (transaction_id) do nothing)`,
      ];
    }
    const changes = defined(changesOf(event) as Record<string, unknown>);
    const sets = Object.keys(changes).map((k) => q`${q.id(k)} = ${changes[k]}`);
    return [
      q`tx_row as (update transactions set ${q.join([...sets, q`sequence = ins.version`, q`updated_at = ins.recorded_at`])}
        from ins where transactions.id = ${event.data.transaction_id} and transactions.sequence < ins.version
        returning transactions.*)`,
    ];
  },

  /**
   * A batch folds each charge's events in memory: a charge created in the batch is inserted once at its
   * last version (an upsert guarded by `sequence`, so a replay over an existing row ends where `handle`
   * would); the others get their merged changes in one guarded update per set of changed columns.
   */
  async handleBatch(events, trx) {
    const created = new Map<string, { row: Record<string, unknown>; request: Record<string, unknown> }>();
    const changed = new Map<string, Record<string, unknown>>();
    for (const recorded of events) {
      const event = decodeTransactionEvent(recorded);
      const id = event.data.transaction_id;
      if (event.type === 'Transaction.Reserved') {
        if (created.has(id)) continue;
        const d = event.data;
        // Objects, not JSON text: the whole batch is serialized once.
        const request = {
          ...requestRow(d, recorded),
          request: d.request,
          provider_request: d.provider_request,
        };
        created.set(id, { row: { ...reservedRow(d, recorded) }, request });
        continue;
      }
      const step = defined({
        ...changesOf(event),
        sequence: recorded.version,
        updated_at: recorded.recordedAt,
      });
      const target = created.get(id)?.row ?? changed.get(id);
      if (!target) changed.set(id, { id, ...step });
      else if (recorded.version > Number(target.sequence)) Object.assign(target, step);
    }
    if (created.size > 0) {
      const rows = [...created.values()];
      await sql`
        insert into transactions select * from ${recordset(
          'transactions',
          rows.map((r) => r.row),
        )}
        on conflict (id) do update set ${setExcluded(UPSERT_COLUMNS)}
        where transactions.sequence < excluded.sequence`.execute(trx);
      await sql`
        insert into transaction_requests
        select * from ${recordset(
          'transaction_requests',
          rows.map((r) => r.request),
        )}
        on conflict (transaction_id) do nothing`.execute(trx);
    }
    if (changed.size > 0) await updateGuarded(trx, 'transactions', 'id', [...changed.values()]);
  },

  async reset(trx) {
    await sql`truncate transactions, transaction_requests`.execute(trx);
  },
};

type Reserved = Extract<TransactionEvent, { type: 'Transaction.Reserved' }>['data'];

/** The masked card a card charge shows (SPEC 4.9); null for the other methods. */
function cardColumn(d: Reserved): CardColumn | null {
  const c = d.credit_card;
  if (!c) return null;
  const { card_id: _, ...masked } = c.card;
  return { ...masked, installments: c.installments };
}

/** The row a reservation creates (status `processing`, sequence = the reservation's version). */
function reservedRow(d: Reserved, recorded: RecordedEvent): Insertable<TransactionsTable> {
  return {
    id: d.transaction_id,
    tenant_id: d.tenant_id,
    livemode: d.livemode,
    method: d.method,
    status: STATUS_AFTER['Transaction.Reserved'],
    amount: d.amount,
    currency: d.currency,
    reference: d.reference,
    description: d.description,
    simulated: d.simulated,
    environment: d.environment,
    provider_id: d.provider_id,
    subaccount_id: d.subaccount_id,
    provider_reference: null,
    cost_center_id: d.cost_center_id,
    callback_url: d.callback_url,
    pix_copy_paste: null,
    pix_qr_code: null,
    expires_at: null,
    boleto_due_date: d.boleto?.due_date ?? null,
    boleto_url: null,
    boleto_digitable_line: null,
    boleto_barcode: null,
    boleto_pix_copy_paste: null,
    boleto_pix_expires_at: null,
    failure_code: null,
    provider_error_code: null,
    provider_error_message: null,
    provider_http_status: null,
    paid_with: null,
    paid_at: null,
    duplicate_payment_at: null,
    refund_status: null,
    credit_card: cardColumn(d),
    card_id: d.credit_card?.card.card_id ?? null,
    document_signature: storedDocumentSignature(d.transaction_id),
    duplicate_refund: null,
    pending_due_date: null,
    refund_route: null,
    refund_transfer_id: null,
    pix_automatic_authorization_id: d.pix_automatic_authorization_id ?? null,
    scheduled_due_date: d.scheduled_due_date ?? null,
    fees: d.fees ?? null,
    sequence: recorded.version,
    created_at: recorded.recordedAt,
    updated_at: recorded.recordedAt,
  };
}

function requestRow(d: Reserved, recorded: RecordedEvent): Insertable<TransactionRequestsTable> {
  return {
    transaction_id: d.transaction_id,
    tenant_id: d.tenant_id,
    livemode: d.livemode,
    source: 'captured',
    request: JSON.stringify(d.request),
    provider_request: d.provider_request === null ? null : JSON.stringify(d.provider_request),
    missing_fields: [],
    created_at: recorded.recordedAt,
  };
}

type Changes = RowChanges<'transactions'>;

type LaterEvent = Exclude<TransactionEvent, { type: 'Transaction.Reserved' }>;

/** The columns an event (other than the reservation) sets: its status from `statusAfter`, then its facts. */
export function changesOf(event: LaterEvent): Changes {
  const status = statusAfter(event.type);
  return { ...(status === null ? {} : { status }), ...factsOf(event) };
}

/** The columns other than the status an event sets. */
function factsOf(event: LaterEvent): Changes {
  switch (event.type) {
    case 'Transaction.Issued': {
      // boleto_details: for the boleto PDF only (read from the fold), never a column or a view field.
      const {
        transaction_id: _,
        source: _s,
        provider_reference,
        boleto_details: _d,
        ...artifacts
      } = event.data;
      // A refresh may confirm without naming the external id again: never erase a known one.
      return {
        ...artifacts,
        ...(provider_reference === null ? {} : { provider_reference }),
      };
    }
    case 'Transaction.Captured':
      return {
        paid_with: 'credit_card',
        paid_at: event.data.paid_at,
        provider_reference: event.data.provider_reference,
        ...(event.data.card_id === null ? {} : { card_id: event.data.card_id }),
      };
    case 'Transaction.Refused': {
      const { transaction_id: _, provider_reference, ...rest } = event.data;
      return { ...rest, ...(provider_reference === null ? {} : { provider_reference }) };
    }
    case 'Transaction.Unconfirmed': {
      const { transaction_id: _, reason: _r, provider_reference, ...diagnostics } = event.data;
      return {
        ...diagnostics,
        ...(provider_reference === null ? {} : { provider_reference }),
      };
    }
    case 'Transaction.PaymentProcessing':
    case 'Transaction.AwaitingPayment':
    case 'Transaction.Expired':
      return {};
    case 'Transaction.Paid':
      return {
        paid_with: event.data.paid_with,
        paid_at: event.data.paid_at,
        duplicate_payment_at: event.data.duplicate_payment_at,
        duplicate_refund: event.data.duplicate_payment_at === null ? null : 'due',
      };
    case 'Transaction.Refunded':
      return { refund_status: event.data.refund_status };
    case 'Transaction.DueDateChanged': {
      const {
        transaction_id: _,
        previous_due_date: _p,
        boleto_due_date,
        boleto_details: _d,
        ...changed
      } = event.data;
      // Fields absent from older events (or from a simulator answer) leave their columns as they are.
      return defined({ boleto_due_date, pending_due_date: null, ...changed }) as Changes;
    }
    case 'Transaction.BoletoPixIssued': {
      const { boleto_pix_copy_paste, boleto_pix_expires_at } = event.data;
      return { boleto_pix_copy_paste, boleto_pix_expires_at };
    }
    case 'Transaction.ProviderReferenceFound':
      return { provider_reference: event.data.provider_reference };
    case 'Transaction.DuplicatePaymentFound':
      return {
        paid_with: event.data.paid_with,
        duplicate_payment_at: event.data.duplicate_payment_at,
        duplicate_refund: 'due',
      };
    case 'Transaction.DuplicateRefundAttempted':
      return { duplicate_refund: 'attempted' };
    case 'Transaction.DuplicateRefunded':
      return { duplicate_refund: 'succeeded' };
    case 'Transaction.DuplicateRefundRefused':
      return { duplicate_refund: 'refused' };
    case 'Transaction.RefundUnconfirmed':
      return { refund_status: 'pending' };
    case 'Transaction.RefundRefused':
      return { refund_status: 'failed' };
    case 'Transaction.DueDateChangeUnconfirmed':
      return { pending_due_date: event.data.boleto_due_date };
    case 'Transaction.DueDateChangeRefused':
      return { pending_due_date: null };
    case 'Transaction.RefundRequested':
      return {
        refund_status: 'pending',
        refund_route: event.data.route ?? 'provider',
        refund_transfer_id: null,
      };
    case 'Transaction.RefundPayoutSent':
      return { refund_transfer_id: event.data.transfer_id };
    case 'Transaction.RefundHandedToOperator':
      return { refund_status: 'pending', refund_route: 'operator' };
    case 'Transaction.RefundPayoutReturned':
      return { refund_status: 'failed', refund_route: 'operator' };
    case 'Transaction.RefundCancelled':
      return { refund_status: 'failed', refund_route: null };
    case 'Transaction.RefundBankAccountViewed':
      return {};
    case 'Transaction.DueDateChangeRequested':
      return { pending_due_date: event.data.boleto_due_date };
  }
}

/** The row's column names (this code's own, so quoted as text without a node per name). */
function columnsOf(row: object): SqlText {
  return q.raw(`"${Object.keys(row).join('", "')}"`);
}

function valuesOf(row: object): SqlText {
  return q.join(Object.values(row));
}

const instant = (iso: string | null) => (iso === null ? null : new Date(iso));

/**
 * The row this projection holds for a charge, computed from the decider's folded state and the stream's
 * first and last recorded events (the state-based form of `handle` + `changesOf`). `calebe audit replay`
 * compares it with the stored row; test/integration/transactions-projection.test.ts checks the two forms
 * agree over random command sequences.
 */
export function transactionRowFromState(
  s: TransactionFacts,
  first: Pick<RecordedEvent, 'recordedAt'>,
  last: Pick<RecordedEvent, 'recordedAt' | 'version'>,
): Selectable<TransactionsTable> {
  const r = s.reserved;
  const a = s.artifacts;
  return {
    id: r.transaction_id,
    tenant_id: r.tenant_id,
    livemode: r.livemode,
    method: r.method,
    status: s.status,
    amount: String(r.amount),
    currency: r.currency,
    reference: r.reference,
    description: r.description,
    simulated: r.simulated,
    environment: r.environment,
    provider_id: r.provider_id,
    subaccount_id: r.subaccount_id,
    provider_reference: a.provider_reference,
    cost_center_id: r.cost_center_id,
    callback_url: r.callback_url,
    pix_copy_paste: a.pix_copy_paste,
    pix_qr_code: a.pix_qr_code,
    expires_at: instant(a.expires_at),
    boleto_due_date: s.boletoDueDate,
    boleto_url: a.boleto_url,
    boleto_digitable_line: a.boleto_digitable_line,
    boleto_barcode: a.boleto_barcode,
    boleto_pix_copy_paste: a.boleto_pix_copy_paste,
    boleto_pix_expires_at: instant(a.boleto_pix_expires_at),
    failure_code: s.failureCode,
    provider_error_code: s.diagnostics.provider_error_code,
    provider_error_message: s.diagnostics.provider_error_message,
    provider_http_status: s.diagnostics.provider_http_status,
    paid_with: s.paidWith,
    paid_at: instant(s.paidAt),
    duplicate_payment_at: instant(s.duplicatePaymentAt),
    refund_status: s.refundStatus,
    credit_card: cardColumn(r),
    card_id: s.cardId,
    // What the projection stores under the secret this process signs with (a rebuild writes the same).
    document_signature: storedDocumentSignature(r.transaction_id),
    duplicate_refund: s.duplicateRefund?.status ?? null,
    pending_due_date: s.pendingDueDate,
    refund_route: s.refundRoute,
    refund_transfer_id: s.refundTransferId,
    pix_automatic_authorization_id: r.pix_automatic_authorization_id ?? null,
    scheduled_due_date: r.scheduled_due_date ?? null,
    fees: r.fees ?? null,
    sequence: String(last.version),
    created_at: first.recordedAt,
    updated_at: last.recordedAt,
  };
}
