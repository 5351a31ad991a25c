import type { ColumnType, Generated } from 'kysely';

/** Tables of the event store itself. Read-model tables add their own interfaces here as they appear. */
export interface StreamsTable {
  stream_id: string;
  version: ColumnType<string, number, number>;
}

export interface EventsTable {
  global_position: Generated<string>;
  transaction_id: Generated<string>;
  stream_id: string;
  version: ColumnType<string, number, never>;
  event_id: string;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: unknown;
  recorded_at: Generated<Date>;
}

export interface ProjectionCheckpointsTable {
  name: string;
  tx: ColumnType<string, number, number>;
  pos: ColumnType<string, number, number>;
  updated_at: ColumnType<Date, Date | string, Date | string>;
}

export interface StreamCatalogTable {
  stream_id: string;
  category: string;
  version: ColumnType<string, number, number>;
  last_type: string;
  first_recorded_at: ColumnType<Date, Date, Date>;
  last_recorded_at: ColumnType<Date, Date, Date>;
}

export interface Database {
  streams: StreamsTable;
  events: EventsTable;
  projection_checkpoints: ProjectionCheckpointsTable;
  stream_catalog: StreamCatalogTable;
}
