import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { RecordedEvent } from '../events/event-store.ts';

/**
 * A read model, written once and run inline (inside the append's SQL transaction) or async (catch-up from
 * a checkpoint). DESIGN.md "Projections".
 */
export interface Projection {
  /** Stable name; also the checkpoint key and the advisory-lock key. */
  readonly name: string;
  readonly eventTypes: readonly string[];
  /** Receives every event, whatever its type (catalogs, fan-out). */
  readonly handlesAll?: boolean;
  handle(event: RecordedEvent, trx: Transaction<Database>): Promise<void>;
  /**
   * Optional: applies a run of events (commit order, only types this projection handles) in a few
   * multi-row statements. Must leave the read model exactly as `handle` applied to each event in order
   * would. Used by the runner (catch-up, rebuild) and the bulk append path (issue 7: seeding, rebuild speed).
   */
  handleBatch?(events: readonly RecordedEvent[], trx: Transaction<Database>): Promise<void>;
  /** Empties the read model, before a rebuild replays the whole log into it. */
  reset(trx: Transaction<Database>): Promise<void>;
}

export function handles(projection: Projection, type: string): boolean {
  return projection.handlesAll === true || projection.eventTypes.includes(type);
}

/** Applies the events a projection handles, as one batch when it can, else one by one in order. */
export async function applyEvents(
  projection: Projection,
  events: readonly RecordedEvent[],
  trx: Transaction<Database>,
): Promise<void> {
  const mine = events.filter((e) => handles(projection, e.type));
  if (mine.length === 0) return;
  if (projection.handleBatch && mine.length > 1) return projection.handleBatch(mine, trx);
  for (const event of mine) await projection.handle(event, trx);
}
