import type { Selectable } from 'kysely';
import { fold } from '../aggregates/decider.ts';
import { type TransactionEvent, transaction } from '../aggregates/transaction.ts';
import type { AppContext } from '../commands/context.ts';
import { transactionStream } from '../commands/transactions/shared/stream.ts';
import { toTransactionView } from '../commands/transactions/view.ts';
import type { TransactionsTable, WebhookMessagesTable } from '../db/schema.ts';
import type { RecordedEvent } from '../events/event-store.ts';
import { transactionRowFromState } from '../projections/transactions.ts';

export type MessageToRender = { message_id: string } & Pick<
  Selectable<WebhookMessagesTable>,
  'type' | 'transaction_id' | 'sequence' | 'previous_status' | 'occurred_at' | 'snapshot'
>;

/** A `transactions` row; from a snapshot its timestamps are ISO strings, which the view reads alike. */
type TransactionRow = Selectable<TransactionsTable>;

type RenderContext = Pick<AppContext, 'store' | 'events' | 'config' | 'db' | 'now'>;

/**
 * Message bodies (SPEC 6): `{ type, timestamp, data }`, where `data` is the Transaction as the API returns it
 * at the message's stream version (a later change never leaks into an earlier message) plus
 * `previous_status` and `sequence` (the stream version: receivers order updates by it and drop stale ones).
 * The row is the message's snapshot when the projection took one; otherwise the stream folded to that
 * version, with one stream read per charge however many of its messages are rendered.
 */
export async function renderMessageBodies(
  ctx: RenderContext,
  messages: readonly MessageToRender[],
): Promise<Map<string, string>> {
  const bodies = new Map<string, string>();
  const byCharge = new Map<string, MessageToRender[]>();
  for (const m of messages) {
    if (m.snapshot !== null) bodies.set(m.message_id, await body(ctx, m, m.snapshot as TransactionRow));
    else byCharge.set(m.transaction_id, [...(byCharge.get(m.transaction_id) ?? []), m]);
  }
  for (const [transactionId, ofCharge] of byCharge) {
    const recorded = await ctx.store.read(transactionStream(transactionId));
    for (const m of ofCharge) bodies.set(m.message_id, await body(ctx, m, folded(ctx, m, recorded)));
  }
  return bodies;
}

function folded(ctx: RenderContext, message: MessageToRender, stream: readonly RecordedEvent[]) {
  const sequence = Number(message.sequence);
  const recorded = stream.filter((r) => r.version <= sequence);
  const first = recorded[0];
  const last = recorded.at(-1);
  if (!first || !last || last.version !== sequence) {
    throw new Error(`transaction ${message.transaction_id} has no event at version ${sequence}`);
  }
  const state = fold(
    transaction,
    recorded.map((r) => ctx.events.decode(r) as TransactionEvent),
  );
  if (state.status === 'none') throw new Error(`transaction ${message.transaction_id} was never reserved`);
  return transactionRowFromState(state, first, last);
}

async function body(ctx: RenderContext, message: MessageToRender, row: TransactionRow): Promise<string> {
  const view = await toTransactionView(ctx, row);
  return JSON.stringify({
    type: message.type,
    timestamp: new Date(message.occurred_at).toISOString(),
    data: { ...view, previous_status: message.previous_status, sequence: Number(message.sequence) },
  });
}
