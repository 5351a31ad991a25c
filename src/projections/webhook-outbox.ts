import { sql } from 'kysely';
import { statusAfter, type TransactionStatus } from '../aggregates/transaction.ts';
import { q } from '../db/sql-text.ts';
import type { Projection } from '../events/projection.ts';
import { recordset, updateGuarded } from './batch-sql.ts';
import { decodeTransactionEvent, TRANSACTION_EVENT_TYPES } from './transactions.ts';

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
  // A charge's deliveries go to the endpoints registered before its event, in async mode too.
  after: ['webhook_endpoints'],

  async handle(recorded, trx) {
    const event = decodeTransactionEvent(recorded);
    const status = statusAfter(event.type);
    if (status === null) return;
    const id = event.data.transaction_id;
    const version = recorded.version;
    const at = recorded.recordedAt;
    // The charge's fold and its message in one statement (BENCHMARKS.md "HTTP create and replay", lever a).
    // `charge` is the row a message needs (tenant, mode, callback_url, status before) or no row at all.
    // A reservation registers the charge (a replay meets the conflict and changes nothing) and is always
    // `transaction.created`; any other event moves the fold only forward (`sequence < version`) and reads
    // the status before from the same statement that writes the new one (the self-join sees the row as
    // it was when the statement started): no row when the event is stale or the status did not change.
    const charge =
      event.type === 'Transaction.Reserved'
        ? sql`
      state as (
        insert into webhook_charge_states (transaction_id, tenant_id, livemode, callback_url, status, sequence)
        values (${id}, ${event.data.tenant_id}, ${event.data.livemode}, ${event.data.callback_url}, ${status},
          ${version})
        on conflict (transaction_id) do nothing),
      charge as (
        select ${event.data.tenant_id}::text as tenant_id, ${event.data.livemode}::boolean as livemode,
          ${event.data.callback_url}::text as callback_url, null::text as previous)`
        : sql`
      state as (
        update webhook_charge_states as s set status = ${status}, sequence = ${version}
        from webhook_charge_states as old
        where old.transaction_id = s.transaction_id and s.transaction_id = ${id} and s.sequence < ${version}
        returning old.status as previous, s.tenant_id, s.livemode, s.callback_url),
      charge as (select tenant_id, livemode, callback_url, previous from state where previous <> ${status})`;

    // Then the destinations (every enabled endpoint of the tenant in the charge's mode, plus the
    // callback_url), the message only when there is at least one (a replay inserts nothing, so nothing
    // follows), and one delivery per destination.
    await sql`
      with ${charge},
      destinations as (
        select 'endpoint' as destination, e.id as endpoint_id, null::text as callback_url
        from charge c join webhook_endpoints e
          on e.tenant_id = c.tenant_id and e.mode = case when c.livemode then 'live' else 'test' end
          and e.enabled and e.deleted_at is null
        union all
        select 'callback', null, c.callback_url from charge c where c.callback_url is not null),
      message as (
        insert into webhook_messages (id, event_id, type, tenant_id, livemode, transaction_id, sequence,
          status, previous_status, occurred_at, snapshot, body)
        select ${webhookMessageId(recorded.id)}, ${recorded.id},
          ${event.type === 'Transaction.Reserved' ? 'transaction.created' : 'transaction.updated'}, c.tenant_id,
          c.livemode, ${id}, ${version}, ${status}, c.previous, ${at},
          -- Inline, the transactions projection has just written this version in this transaction: a copy
          -- spares the worker a stream read. Async (EventStoreDB) the row may be ahead: then null.
          (select to_jsonb(t) from transactions t where t.id = ${id} and t.sequence = ${version}),
          null
        from charge c
        where exists (select 1 from destinations)
        on conflict (event_id) do nothing
        returning id, tenant_id)
      insert into webhook_deliveries (id, message_id, tenant_id, transaction_id, destination, endpoint_id,
        callback_url, status, attempts, next_attempt_at, created_at, updated_at)
      select 'whd_' || replace(gen_random_uuid()::text, '-', ''), message.id, message.tenant_id, ${id},
        d.destination, d.endpoint_id, d.callback_url, 'pending', 0, ${at}, ${at}, ${at}
      from message cross join destinations d`.execute(trx);
  },

  /**
   * `handle` as CTEs of the append's statement (issue 14; see Projection.fused): the same statement with the
   * event's row (`ins`) for its time and as the guard, and the charge's snapshot from the row the
   * transactions projection writes in the same statement (sibling CTEs cannot see it in the table).
   */
  fused(recorded, written) {
    const event = decodeTransactionEvent(recorded);
    const status = statusAfter(event.type);
    if (status === null) return [];
    const id = event.data.transaction_id;
    const version = recorded.version;
    const charge =
      event.type === 'Transaction.Reserved'
        ? [
            q`wo_state as (
        insert into webhook_charge_states (transaction_id, tenant_id, livemode, callback_url, status, sequence)
        select ${id}, ${event.data.tenant_id}, ${event.data.livemode}, ${event.data.callback_url}, ${status},
          ${version} from ins
        on conflict (transaction_id) do nothing)`,
            q`wo_charge as (
        select ${event.data.tenant_id}::text as tenant_id, ${event.data.livemode}::boolean as livemode,
          ${event.data.callback_url}::text as callback_url, null::text as previous from ins)`,
          ]
        : [
            q`wo_state as (
        update webhook_charge_states as s set status = ${status}, sequence = ${version}
        from webhook_charge_states as old, ins
        where old.transaction_id = s.transaction_id and s.transaction_id = ${id} and s.sequence < ${version}
        returning old.status as previous, s.tenant_id, s.livemode, s.callback_url)`,
            q`wo_charge as (select tenant_id, livemode, callback_url, previous from wo_state
        where previous <> ${status})`,
          ];
    const row = written.get('transactions');
    const snapshot = row
      ? q`(select to_jsonb(r) from ${q.id(row)} r where r.id = ${id} and r.sequence = ${version})`
      : q`(select to_jsonb(t) from transactions t where t.id = ${id} and t.sequence = ${version})`;
    return [
      ...charge,
      q`wo_destinations as (
        select 'endpoint' as destination, e.id as endpoint_id, null::text as callback_url
        from wo_charge c join webhook_endpoints e
          on e.tenant_id = c.tenant_id and e.mode = case when c.livemode then 'live' else 'test' end
          and e.enabled and e.deleted_at is null
        union all
        select 'callback', null, c.callback_url from wo_charge c where c.callback_url is not null)`,
      q`wo_message as (
        insert into webhook_messages (id, event_id, type, tenant_id, livemode, transaction_id, sequence,
          status, previous_status, occurred_at, snapshot, body)
        select ${webhookMessageId(recorded.id)}, ${recorded.id},
          ${event.type === 'Transaction.Reserved' ? 'transaction.created' : 'transaction.updated'}, c.tenant_id,
          c.livemode, ${id}, ${version}, ${status}, c.previous, ins.recorded_at, ${snapshot}, null
        from wo_charge c cross join ins
        where exists (select 1 from wo_destinations)
        on conflict (event_id) do nothing
        returning id, tenant_id, occurred_at)`,
      q`wo_deliveries as (
        insert into webhook_deliveries (id, message_id, tenant_id, transaction_id, destination, endpoint_id,
          callback_url, status, attempts, next_attempt_at, created_at, updated_at)
        select 'whd_' || replace(gen_random_uuid()::text, '-', ''), m.id, m.tenant_id, ${id},
          d.destination, d.endpoint_id, d.callback_url, 'pending', 0, m.occurred_at, m.occurred_at, m.occurred_at
        from wo_message m cross join wo_destinations d)`,
    ];
  },

  /**
   * A batch: reservations insert their charge states in one statement; every state the batch touches is
   * then read once and folded in memory in commit order with the same rules as `handle` (guarded by the
   * stream version; a message only when the status changes); changed states are written back in one
   * statement and all messages with their deliveries in one more. Destinations are the endpoints enabled
   * when the batch is applied.
   */
  async handleBatch(events, trx) {
    const decoded = events.flatMap((recorded) => {
      const event = decodeTransactionEvent(recorded);
      const status = statusAfter(event.type);
      return status === null ? [] : [{ recorded, event, status }];
    });
    if (decoded.length === 0) return;
    const reservations = decoded.flatMap(({ recorded, event, status }) =>
      event.type === 'Transaction.Reserved'
        ? [
            {
              transaction_id: event.data.transaction_id,
              tenant_id: event.data.tenant_id,
              livemode: event.data.livemode,
              callback_url: event.data.callback_url,
              status,
              sequence: recorded.version,
            },
          ]
        : [],
    );
    if (reservations.length > 0) {
      await sql`
        insert into webhook_charge_states select * from ${recordset('webhook_charge_states', reservations)}
        on conflict (transaction_id) do nothing`.execute(trx);
    }
    const ids = [...new Set(decoded.map((d) => d.event.data.transaction_id))];
    const { rows: held } = await sql<{
      transaction_id: string;
      tenant_id: string;
      livemode: boolean;
      callback_url: string | null;
      status: string;
      sequence: string;
    }>`select * from webhook_charge_states where transaction_id = any(${ids}::text[]) for update`.execute(
      trx,
    );
    const states = new Map(held.map((s) => [s.transaction_id, { ...s, sequence: Number(s.sequence) }]));
    const dirty = new Set<string>();
    const messages: {
      tenant_id: string;
      livemode: boolean;
      callback_url: string | null;
      [column: string]: unknown;
    }[] = [];
    for (const { recorded, event, status } of decoded) {
      const id = event.data.transaction_id;
      let previous: TransactionStatus | null = null;
      let charge: { tenant_id: string; livemode: boolean; callback_url: string | null };
      if (event.type === 'Transaction.Reserved') {
        const d = event.data;
        charge = { tenant_id: d.tenant_id, livemode: d.livemode, callback_url: d.callback_url };
      } else {
        const state = states.get(id);
        if (!state || !(state.sequence < recorded.version)) continue;
        previous = state.status as TransactionStatus;
        state.status = status;
        state.sequence = recorded.version;
        dirty.add(id);
        if (previous === status) continue;
        charge = state;
      }
      messages.push({
        ord: messages.length,
        id: webhookMessageId(recorded.id),
        event_id: recorded.id,
        type: previous === null ? 'transaction.created' : 'transaction.updated',
        tenant_id: charge.tenant_id,
        livemode: charge.livemode,
        transaction_id: id,
        sequence: recorded.version,
        status,
        previous_status: previous,
        occurred_at: recorded.recordedAt,
        callback_url: charge.callback_url,
      });
    }
    if (dirty.size > 0) {
      await updateGuarded(
        trx,
        'webhook_charge_states',
        'transaction_id',
        [...dirty].map((id) => {
          const s = states.get(id) as { status: string; sequence: number };
          return { transaction_id: id, status: s.status, sequence: s.sequence };
        }),
      );
    }
    // Only messages with somewhere to go are written (as in `handle`): find the tenants and modes with an
    // enabled endpoint first, so a batch whose charges have no destination sends no statement at all.
    const tenants = [...new Set(messages.filter((m) => m.callback_url === null).map((m) => m.tenant_id))];
    const { rows: open } =
      tenants.length === 0
        ? { rows: [] }
        : await sql<{ tenant_id: string; mode: string }>`
            select distinct tenant_id, mode from webhook_endpoints
            where tenant_id = any(${tenants}::text[]) and enabled and deleted_at is null`.execute(trx);
    const reachable = new Set(open.map((r) => `${r.tenant_id}:${r.mode}`));
    const routed = messages.filter(
      (m) => m.callback_url !== null || reachable.has(`${m.tenant_id}:${m.livemode ? 'live' : 'test'}`),
    );
    if (routed.length === 0) return;
    // As in `handle`: destinations per message, the message only when it has one, one delivery each.
    await sql`
      with c as (
        select * from jsonb_to_recordset(${JSON.stringify(routed)}::jsonb) as c(ord bigint, id text,
          event_id uuid, type text, tenant_id text, livemode boolean, transaction_id text, sequence bigint,
          status text, previous_status text, occurred_at timestamptz, callback_url text)),
      destinations as (
        select c.event_id, 'endpoint' as destination, e.id as endpoint_id, null::text as callback_url
        from c join webhook_endpoints e
          on e.tenant_id = c.tenant_id and e.mode = case when c.livemode then 'live' else 'test' end
          and e.enabled and e.deleted_at is null
        union all
        select c.event_id, 'callback', null, c.callback_url from c where c.callback_url is not null),
      message as (
        insert into webhook_messages (id, event_id, type, tenant_id, livemode, transaction_id, sequence,
          status, previous_status, occurred_at, snapshot, body)
        select c.id, c.event_id, c.type, c.tenant_id, c.livemode, c.transaction_id, c.sequence, c.status,
          c.previous_status, c.occurred_at,
          (select to_jsonb(t) from transactions t where t.id = c.transaction_id and t.sequence = c.sequence),
          null
        from c where exists (select 1 from destinations d where d.event_id = c.event_id)
        order by c.ord
        on conflict (event_id) do nothing
        returning id, event_id)
      insert into webhook_deliveries (id, message_id, tenant_id, transaction_id, destination, endpoint_id,
        callback_url, status, attempts, next_attempt_at, created_at, updated_at)
      select 'whd_' || replace(gen_random_uuid()::text, '-', ''), m.id, c.tenant_id, c.transaction_id,
        d.destination, d.endpoint_id, d.callback_url, 'pending', 0, c.occurred_at, c.occurred_at, c.occurred_at
      from message m join c on c.event_id = m.event_id join destinations d on d.event_id = m.event_id`.execute(
      trx,
    );
  },

  async reset() {
    // Deliberately nothing: see above.
  },
};
