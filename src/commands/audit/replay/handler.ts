import type { Selectable } from 'kysely';
import { fold } from '../../../aggregates/decider.ts';
import { type TransactionEvent, transaction } from '../../../aggregates/transaction.ts';
import type { TransactionsTable } from '../../../db/schema.ts';
import { transactionRowFromState } from '../../../projections/transactions.ts';
import type { AppContext } from '../../context.ts';
import { canonicalJson } from '../../idempotency.ts';

/** One field where the read model disagrees with the fold of the stream (DESIGN.md: the event is the record). */
export interface ReplayDifference {
  transaction_id: string;
  /** A `transactions` column, `row` (a missing or orphan row) or `stream` (the stream does not fold). */
  field: string;
  /** From the fold of the stream; null when the fold has no such value. */
  expected: string | null;
  /** In the read model. */
  actual: string | null;
}

export interface ReplayReport {
  /** Transactions checked: streams folded plus orphan rows (an id with neither is not counted). */
  checked: number;
  differences: ReplayDifference[];
}

export type ReplayContext = Pick<AppContext, 'db' | 'store' | 'events'>;

const PREFIX = 'transaction-';
const BATCH = 500;

/**
 * A comparable text form of a column value (timestamps as ISO instants, bigints and numbers as text; a jsonb
 * object with its keys sorted, since PostgreSQL's jsonb keeps its own key order).
 */
function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return canonicalJson(value);
  return String(value);
}

/** Every transaction id that has a stream (from `stream_catalog`) or a read-model row, in id order. */
async function allTransactionIds(ctx: ReplayContext): Promise<string[]> {
  const streams = await ctx.db
    .selectFrom('stream_catalog')
    .select('stream_id')
    .where('category', '=', 'transaction')
    .execute();
  const rows = await ctx.db.selectFrom('transactions').select('id').execute();
  const ids = new Set<string>(rows.map((r) => r.id));
  for (const s of streams) ids.add(s.stream_id.slice(PREFIX.length));
  return [...ids].sort();
}

/** Compares one stream's fold with its row; returns the differences. */
async function checkOne(
  ctx: ReplayContext,
  id: string,
  row: Selectable<TransactionsTable> | undefined,
): Promise<ReplayDifference[] | undefined> {
  const recorded = await ctx.store.read(`${PREFIX}${id}`);
  const first = recorded[0];
  const last = recorded.at(-1);
  if (!first || !last) {
    if (!row) return undefined;
    return [{ transaction_id: id, field: 'row', expected: 'absent (no events)', actual: 'present' }];
  }
  let expected: Selectable<TransactionsTable>;
  try {
    const state = fold(
      transaction,
      recorded.map((r) => ctx.events.decode(r) as TransactionEvent),
    );
    if (state.status === 'none') {
      return [{ transaction_id: id, field: 'stream', expected: 'a reserved charge', actual: 'none' }];
    }
    expected = transactionRowFromState(state, first, last);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return [{ transaction_id: id, field: 'stream', expected: 'a stream that folds', actual: message }];
  }
  if (!row) return [{ transaction_id: id, field: 'row', expected: 'present', actual: 'missing' }];
  const differences: ReplayDifference[] = [];
  const columns = new Set([...Object.keys(expected), ...Object.keys(row)]);
  for (const field of columns) {
    const want = text(Reflect.get(expected, field));
    const got = text(Reflect.get(row, field));
    if (want !== got) differences.push({ transaction_id: id, field, expected: want, actual: got });
  }
  return differences;
}

/**
 * `calebe audit replay`: folds every `transaction-*` stream (or one) through the Transaction decider and
 * compares the row the projection should hold with the `transactions` read model. A stream without a row,
 * a row without a stream and every differing column are reported. Streams are enumerated from
 * `stream_catalog` (async: callers catch it up first) together with the read model's ids, so an orphan row
 * is found even when the catalog never saw a stream for it.
 */
export async function replayTransactions(
  ctx: ReplayContext,
  opts: { transactionId?: string } = {},
): Promise<ReplayReport> {
  const ids = opts.transactionId === undefined ? await allTransactionIds(ctx) : [opts.transactionId];
  const differences: ReplayDifference[] = [];
  let checked = 0;
  for (let i = 0; i < ids.length; i += BATCH) {
    const chunk = ids.slice(i, i + BATCH);
    const rows = await ctx.db.selectFrom('transactions').selectAll().where('id', 'in', chunk).execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const id of chunk) {
      const found = await checkOne(ctx, id, byId.get(id));
      if (found === undefined) continue;
      checked += 1;
      differences.push(...found);
    }
  }
  return { checked, differences };
}

/** One line per difference, as the CLI prints it. */
export function formatDifference(d: ReplayDifference): string {
  return `${d.transaction_id} ${d.field}: expected ${JSON.stringify(d.expected)}, actual ${JSON.stringify(d.actual)}`;
}
