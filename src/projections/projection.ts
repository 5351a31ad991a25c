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
  /** Empties the read model, before a rebuild replays the whole log into it. */
  reset(trx: Transaction<Database>): Promise<void>;
}

export function handles(projection: Projection, type: string): boolean {
  return projection.handlesAll === true || projection.eventTypes.includes(type);
}
