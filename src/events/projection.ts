import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { SqlText } from '../db/sql-text.ts';
import type { RecordedEvent } from './event-store.ts';

/**
 * A read model, written once and run inline (inside the append's SQL transaction) or async (catch-up from
 * a checkpoint). DESIGN.md "Projections".
 */
export interface Projection {
  /** Stable name; also the checkpoint key and the advisory-lock key. */
  readonly name: string;
  readonly eventTypes: readonly string[];
  /**
   * Read models this one reads while applying an event. When the runner also runs them (async mode), it
   * never applies an event they have not applied yet, so the result is the one inline projections give.
   */
  readonly after?: readonly string[];
  /** Receives every event, whatever its type (catalogs, fan-out). */
  readonly handlesAll?: boolean;
  handle(event: RecordedEvent, trx: Transaction<Database>): Promise<void>;
  /**
   * Optional (issue 14): `handle`'s effect for one event as data-modifying CTEs of the append's own
   * statement, so an append and its inline projections are one statement (atomic by itself: no BEGIN, no
   * COMMIT, one round trip). The CTEs read the event's row from `ins` (`version`, `global_position`,
   * `recorded_at`) and must write nothing when `ins` is empty (the append was refused); `event.recordedAt`
   * and positions are unknown here (use `ins`), `event.version` is the one being written. Sibling CTEs see
   * the tables as they were before the statement: a later projection reads what an earlier one wrote
   * through `written` (table name to the CTE returning the written row). `undefined`: use `handle`.
   * Plain SQL text (src/db/sql-text.ts), not kysely's builder: every creation runs these.
   */
  fused?(event: RecordedEvent, written: Map<string, string>): SqlText[] | undefined;
  /**
   * Optional: applies a run of events (commit order, only types this projection handles) in a few
   * multi-row statements. Must leave the read model exactly as `handle` applied to each event in order
   * would. Used by the runner (catch-up, rebuild) and the bulk append path (issue 7: seeding, rebuild speed).
   */
  handleBatch?(events: readonly RecordedEvent[], trx: Transaction<Database>): Promise<void>;
  /** Empties the read model, before a rebuild replays the whole log into it. */
  reset(trx: Transaction<Database>): Promise<void>;
  /**
   * Optional: a faster way to fill the read model from empty, used only by `ProjectionRunner.rebuildAll`
   * (issue 7 B4). See BulkLoad.
   */
  readonly bulkLoad?: BulkLoad;
}

/**
 * Filling a read model from empty in one pass over the whole log (`rebuildAll`), e.g. without secondary
 * indexes, built once at the end (a bulk index build is much cheaper than millions of incremental inserts).
 */
export interface BulkLoad {
  /**
   * Right after `reset`, in the same transaction (the read model is empty): takes away what the pass does
   * not need (e.g. drops secondary indexes) and returns the batch handler for the pass. The loader sees
   * every event of the log, from the start and in commit order, in successive batches, so it may keep
   * state in memory across batches (e.g. what it would otherwise look up in the rows it has written). It
   * must leave the read model exactly as `handle` applied to each event in order would, once `restore` ran.
   */
  begin(trx: Transaction<Database>, options?: BulkLoadOptions): Promise<BulkLoader>;
  /**
   * Puts back what `begin` took away; idempotent, and cheap when nothing is missing (it must hold whatever
   * state the read model is in, a rebuild that died midway included). The runner runs it, under the
   * projection's advisory lock, at the end of `rebuildAll`, when a projection leaves the shared pass, and
   * before a runner first applies a batch to the projection (`step`, and so `catchUp`, the started loops,
   * `catchUpTogether`), so a rebuild that crashed after `begin` is repaired by the next start or catch-up.
   */
  restore(trx: Transaction<Database>): Promise<void>;
}

export interface BulkLoadOptions {
  /** The transaction's connection runs `copyFromStdin` statements (src/db/copy-from-stdin.ts). */
  copyFromStdin: boolean;
}

export interface BulkLoader {
  /** Applies the next batch of the pass (commit order, only types this projection handles). */
  handleBatch(events: readonly RecordedEvent[], trx: Transaction<Database>): Promise<void>;
}

export function handles(projection: Projection, type: string): boolean {
  return projection.handlesAll === true || projection.eventTypes.includes(type);
}

/**
 * Applies the events a projection handles, as one batch when it can, else one by one in order; through the
 * bulk loader of a `rebuildAll` pass when given one (always, even for one event: the loader may keep state).
 */
export async function applyEvents(
  projection: Projection,
  events: readonly RecordedEvent[],
  trx: Transaction<Database>,
  loader?: BulkLoader,
): Promise<void> {
  const mine = events.filter((e) => handles(projection, e.type));
  if (mine.length === 0) return;
  if (loader) return loader.handleBatch(mine, trx);
  if (projection.handleBatch && mine.length > 1) return projection.handleBatch(mine, trx);
  for (const event of mine) await projection.handle(event, trx);
}
