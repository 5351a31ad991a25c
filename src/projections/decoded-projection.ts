import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { type EventDefinition, type EventOf, EventRegistry } from '../events/event-registry.ts';
import type { RecordedEvent } from '../events/event-store.ts';
import type { Projection } from '../events/projection.ts';

/** A read model that applies its events one at a time, as {@link decodedProjection} hands them over. */
export interface DecodedReadModel<Def extends EventDefinition> {
  readonly name: string;
  /** The definitions of the events it reads (one or more aggregates'). */
  readonly definitions: readonly Def[];
  /** The types it applies; no other type reaches `apply`. Without it, every type of `definitions`. */
  readonly eventTypes?: readonly EventOf<Def>['type'][];
  /** What `reset` empties before a rebuild. */
  readonly tables: readonly (keyof Database)[];
  /** `at` is the event's recorded time, so a rebuild reproduces the timestamps it writes. */
  apply(event: EventOf<Def>, at: Date, trx: Transaction<Database>, recorded: RecordedEvent): Promise<void>;
}

/**
 * A projection whose events arrive decoded (upcast and validated), as deciders see them, typed by the
 * definitions it registers instead of a cast in each read model.
 */
export function decodedProjection<Def extends EventDefinition>(model: DecodedReadModel<Def>): Projection {
  const registry = new EventRegistry(model.definitions);
  return {
    name: model.name,
    eventTypes: model.eventTypes ?? model.definitions.map((d) => d.type),
    handle: (recorded, trx) =>
      model.apply(registry.decode(recorded) as EventOf<Def>, recorded.recordedAt, trx, recorded),
    async reset(trx) {
      await sql`truncate ${sql.join(model.tables.map((t) => sql.table(t)))}`.execute(trx);
    },
  };
}
