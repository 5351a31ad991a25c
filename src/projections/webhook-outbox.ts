import { sql } from 'kysely';
import {
  type TransactionEvent,
  type TransactionEventType,
  type TransactionStatus,
  transactionEvents,
} from '../aggregates/transaction.ts';
import { EventRegistry } from '../events/event-registry.ts';
import type { Projection } from './projection.ts';
import { TRANSACTION_EVENT_TYPES } from './transactions.ts';

const registry = new EventRegistry(transactionEvents);

/** The status each event leaves a charge in; events absent here (a due-date change) change no status. */
const STATUS_AFTER: Partial<Record<TransactionEventType, TransactionStatus>> = {
  'Transaction.Reserved': 'processing',
  'Transaction.Issued': 'pending',
  'Transaction.Refused': 'failed',
  'Transaction.Unconfirmed': 'unknown',
  'Transaction.PaymentProcessing': 'processing',
  'Transaction.AwaitingPayment': 'pending',
  'Transaction.Paid': 'paid',
  'Transaction.Expired': 'expired',
  'Transaction.Refunded': 'refunded',
};

/** Standard Webhooks message id, stable across retries and destinations: derived from the event id. */
export function webhookMessageId(eventId: string): string {
  return `msg_${eventId.replaceAll('-', '')}`;
}

/**
 * The webhook outbox (SPEC 6; issue 6 item 2). For each charge event that registers a charge
 * (`transaction.created`) or changes its status (`transaction.updated`, with `previous_status`), one
 * message (when it has somewhere to go) and one delivery per destination: every enabled endpoint of the charge's tenant in its mode, plus
 * the charge's `callback_url`. Inline under the PostgreSQL store, so the deliveries commit with the event;
 * async under EventStoreDB, so they exist once the projection catches up (never lost, maybe later).
 *
 * The message stores the charge's id and stream version (`sequence`, for ordering and dropping stale
 * updates) and, when at hand, the charge's row at that version; the worker renders the body from it (or
 * from the stream folded to that version) at the first attempt.
 *
 * `reset` keeps everything: the outbox records what was promised to receivers, and a rebuild replaying the
 * log must not send it all again. Replays are no-ops (the message is unique per event; the charge's fold
 * is guarded by its stream version).
 */
export const webhookOutboxProjection: Projection = {
  name: 'webhook_outbox',
  eventTypes: TRANSACTION_EVENT_TYPES,

  async handle(recorded, trx) {
    const event = registry.decode(recorded) as TransactionEvent;
    const status = STATUS_AFTER[event.type];
    if (status === undefined) return;
    const id = event.data.transaction_id;
    let previous: TransactionStatus | null = null;
    let charge: { tenant_id: string; livemode: boolean; callback_url: string | null };
    if (event.type === 'Transaction.Reserved') {
      const d = event.data;
      charge = { tenant_id: d.tenant_id, livemode: d.livemode, callback_url: d.callback_url };
      await trx
        .insertInto('webhook_charge_states')
        .values({ transaction_id: id, ...charge, status, sequence: recorded.version })
        .onConflict((oc) => oc.column('transaction_id').doNothing())
        .execute();
    } else {
      const state = await trx
        .updateTable('webhook_charge_states as s')
        .from('webhook_charge_states as old')
        .set({ status, sequence: recorded.version })
        .whereRef('old.transaction_id', '=', 's.transaction_id')
        .where('s.transaction_id', '=', id)
        .where('s.sequence', '<', String(recorded.version))
        .returning(['old.status as previous', 's.tenant_id', 's.livemode', 's.callback_url'])
        .executeTakeFirst();
      if (!state || state.previous === status) return;
      previous = state.previous as TransactionStatus;
      charge = state;
    }

    // One statement: the destinations (every enabled endpoint of the tenant in the charge's mode, plus the
    // callback_url), the message only when there is at least one (a replay inserts nothing, so nothing
    // follows), and one delivery per destination.
    const at = recorded.recordedAt;
    await sql`
      with destinations as (
        select 'endpoint' as destination, e.id as endpoint_id, null::text as callback_url
        from webhook_endpoints e
        where e.tenant_id = ${charge.tenant_id} and e.mode = ${charge.livemode ? 'live' : 'test'}
          and e.enabled and e.deleted_at is null
        union all
        select 'callback', null, ${charge.callback_url}::text where ${charge.callback_url}::text is not null),
      message as (
        insert into webhook_messages (id, event_id, type, tenant_id, livemode, transaction_id, sequence,
          status, previous_status, occurred_at, snapshot, body)
        select ${webhookMessageId(recorded.id)}, ${recorded.id},
          ${previous === null ? 'transaction.created' : 'transaction.updated'}, ${charge.tenant_id},
          ${charge.livemode}, ${id}, ${recorded.version}, ${status}, ${previous}, ${at},
          -- Inline, the transactions projection has just written this version in this transaction: a copy
          -- spares the worker a stream read. Async (EventStoreDB) the row may be ahead: then null.
          (select to_jsonb(t) from transactions t where t.id = ${id} and t.sequence = ${recorded.version}),
          null
        where exists (select 1 from destinations)
        on conflict (event_id) do nothing
        returning id)
      insert into webhook_deliveries (id, message_id, tenant_id, transaction_id, destination, endpoint_id,
        callback_url, status, attempts, next_attempt_at, created_at, updated_at)
      select 'whd_' || replace(gen_random_uuid()::text, '-', ''), message.id, ${charge.tenant_id}, ${id},
        d.destination, d.endpoint_id, d.callback_url, 'pending', 0, ${at}, ${at}, ${at}
      from message cross join destinations d`.execute(trx);
  },

  async reset() {
    // Deliberately nothing: see above.
  },
};
