import type { Transaction, Updateable } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { RecordedEvent } from '../events/event-store.ts';

/** Read models whose rows keep `sequence`, the stream version of the last event applied to them. */
type SequencedTable = 'transactions' | 'webhook_endpoints';

/** The columns an event changes; `sequence` and `updated_at` come from the recorded event itself. */
export type RowChanges<T extends SequencedTable> = Omit<Updateable<Database[T]>, 'sequence' | 'updated_at'>;

/**
 * Applies one event's changes to its row only if the row has not seen this event yet (`sequence < version`),
 * so replaying an event, or an older one arriving late, changes nothing.
 */
export async function updateInOrder<T extends SequencedTable>(
  trx: Transaction<Database>,
  table: T,
  recorded: RecordedEvent,
  id: string,
  changes: RowChanges<T>,
): Promise<void> {
  await trx
    .updateTable(table as SequencedTable)
    .set({ ...changes, sequence: recorded.version, updated_at: recorded.recordedAt })
    .where('id', '=', id)
    .where('sequence', '<', String(recorded.version))
    .execute();
}
