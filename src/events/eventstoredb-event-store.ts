import {
  type AllStreamResolvedEvent,
  ANY,
  type AppendExpectedRevision,
  BACKWARDS,
  type CurrentRevision,
  END,
  START as ESDB_START,
  type RecordedEvent as EsdbRecordedEvent,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
  EventStoreDBClient,
  type JSONType,
  jsonEvent,
  NO_STREAM,
  type Position,
  type ReadPosition,
  type StreamingRead,
  StreamNotFoundError,
} from '@eventstore/db-client';
import {
  type AppendResult,
  type Checkpoint,
  compareCheckpoints,
  type EventMetadata,
  type ExpectedVersion,
  type NewEvent,
  type RecordedEvent,
  START,
  WrongExpectedVersionError,
} from './event-store.ts';
import { NotifyingEventStore } from './notifying-event-store.ts';

/**
 * Reserved key in the ESDB event metadata that carries `schemaVersion`; ESDB has no field for it, and it is
 * stripped again on read so `metadata` round-trips exactly.
 */
const SCHEMA_VERSION_KEY = '$schemaVersion';

/** How many raw $all records to look at per backward page when searching for the newest real event. */
const HEAD_PAGE = 64;

/**
 * ESDB positions and revisions are bigint. Every conversion to number goes through here: log positions are
 * byte offsets in the transaction file, so they stay below 2^53 (8 PiB) for any realistic log.
 */
const toNumber = (n: bigint): number => Number(n);

function checkpointOf(position: Position): Checkpoint {
  return { tx: toNumber(position.commit), pos: toNumber(position.prepare) };
}

/** System events (`$`-typed, e.g. `$>` links and `$metadata`) and `$`-streams are ESDB's, never ours. */
function isSystem(event: EsdbRecordedEvent): boolean {
  return event.type.startsWith('$') || event.streamId.startsWith('$');
}

/** Our versions are 1-based (version = event count); ESDB revisions are 0-based. Converted here only. */
function toExpectedRevision(expected: ExpectedVersion): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream' || expected === 0) return NO_STREAM;
  return BigInt(expected - 1);
}

function toActualVersion(current: CurrentRevision): number | 'no_stream' {
  // Older servers report a missing stream as revision -1 in the error's gRPC metadata.
  return current === 'no_stream' || current < 0n ? 'no_stream' : toNumber(current) + 1;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
  );
}

function toRecorded(event: EsdbRecordedEvent, position: Position): RecordedEvent {
  const raw = isPlainObject(event.metadata) ? event.metadata : {};
  const { [SCHEMA_VERSION_KEY]: schemaVersion, ...metadata } = raw;
  return {
    id: event.id,
    stream: event.streamId,
    version: toNumber(event.revision) + 1,
    position: toNumber(position.commit),
    checkpoint: checkpointOf(position),
    type: event.type,
    schemaVersion: typeof schemaVersion === 'number' ? schemaVersion : 1,
    data: event.data,
    // Written by append() below from an EventMetadata; ESDB stores custom metadata verbatim.
    metadata: metadata as unknown as EventMetadata,
    recordedAt: event.created,
  };
}

/**
 * The client JSON.stringify()s event data inside a promise executor, where a throw would leave the append
 * hanging; stringify once here so unserializable data fails fast. Its JSONType type omits numbers, booleans and
 * null, which serialize just as well.
 */
function jsonData(event: NewEvent): JSONType {
  if (JSON.stringify(event.data) === undefined) {
    throw new TypeError(`event ${event.id}: data is not JSON-serializable`);
  }
  return event.data as JSONType;
}

/** Reads a bounded read to its end; bounded reads are never abandoned midway, so no gRPC call is left open. */
async function collect<E>(read: StreamingRead<E>): Promise<E[]> {
  const out: E[] = [];
  for await (const item of read) out.push(item);
  return out;
}

/**
 * EventStoreDB adapter. ESDB checks expected revisions and dedupes retried batches itself, so an append is a
 * single `appendToStream`. It cannot run projections inside an append: every projection runs async, with its
 * checkpoint kept in the read-model database.
 */
export class EventStoreDbEventStore extends NotifyingEventStore {
  readonly kind = 'eventstoredb' as const;
  readonly supportsInlineProjections = false;
  private readonly client: EventStoreDBClient;
  /** A client handed in may be shared, so only a client built here from a connection string is disposed. */
  private readonly ownsClient: boolean;

  constructor(connection: string | EventStoreDBClient) {
    super();
    this.ownsClient = typeof connection === 'string';
    this.client =
      typeof connection === 'string' ? EventStoreDBClient.connectionString(connection) : connection;
  }

  protected async write(
    stream: string,
    events: readonly NewEvent[],
    expected: ExpectedVersion,
  ): Promise<AppendResult> {
    const proposed = events.map((e) =>
      jsonEvent({
        id: e.id,
        type: e.type,
        data: jsonData(e),
        metadata: { ...e.metadata, [SCHEMA_VERSION_KEY]: e.schemaVersion ?? 1 },
      }),
    );
    let result: Awaited<ReturnType<EventStoreDBClient['appendToStream']>>;
    try {
      result = await this.client.appendToStream(stream, proposed, {
        expectedRevision: toExpectedRevision(expected),
      });
    } catch (error) {
      if (error instanceof EsdbWrongExpectedVersionError) {
        throw new WrongExpectedVersionError(stream, expected, toActualVersion(error.actualVersion));
      }
      throw error;
    }
    // Only with `throwOnAppendFailure=false` in the connection string; its revision is unreliable there
    // (the batch-append path reports 1n), so ask the stream.
    if (!result.success)
      throw new WrongExpectedVersionError(stream, expected, await this.currentVersion(stream));
    const version = toNumber(result.nextExpectedRevision) + 1;
    // A retried batch is acked as "already committed": current servers give the original last event's
    // position, older ones none. Then answer from the stored event, as the first append did.
    const commit = result.position?.commit;
    const position =
      commit !== undefined && commit >= 0n && commit <= BigInt(Number.MAX_SAFE_INTEGER)
        ? toNumber(commit)
        : await this.positionOf(stream, result.nextExpectedRevision);
    return { version, position };
  }

  async read(stream: string, fromVersion = 1): Promise<RecordedEvent[]> {
    if (!Number.isInteger(fromVersion)) throw new RangeError(`invalid version ${fromVersion}`);
    try {
      const resolved = await collect(
        this.client.readStream(stream, { fromRevision: BigInt(Math.max(fromVersion, 1) - 1) }),
      );
      return resolved.flatMap(({ event }) =>
        event ? [toRecorded(event, this.streamEventPosition(event))] : [],
      );
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
  }

  async readAll(after: Checkpoint, limit: number): Promise<RecordedEvent[]> {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`invalid limit ${limit}`);
    const fromStart = compareCheckpoints(after, START) === 0;
    // Reading from a position includes the event at it, hence one more than asked for.
    const pageSize = limit + 1;
    let from: ReadPosition = fromStart
      ? ESDB_START
      : { commit: BigInt(after.tx), prepare: BigInt(after.pos) };
    let floor: Checkpoint | undefined = fromStart ? undefined : after;
    const out: RecordedEvent[] = [];
    for (;;) {
      const page: AllStreamResolvedEvent[] = await collect(
        this.client.readAll({ fromPosition: from, maxCount: pageSize }),
      );
      for (const { event } of page) {
        if (!event || isSystem(event)) continue;
        if (floor && compareCheckpoints(checkpointOf(event.position), floor) <= 0) continue;
        out.push(toRecorded(event, event.position));
        if (out.length === limit) return out;
      }
      const last = page[page.length - 1]?.event;
      // A page of nothing but system events must not read as "caught up": page on until a real event or the end.
      if (out.length > 0 || page.length < pageSize || !last) return out;
      from = last.position;
      floor = checkpointOf(last.position);
    }
  }

  async headCheckpoint(): Promise<Checkpoint> {
    let from: ReadPosition = END;
    let ceiling: Checkpoint | undefined;
    for (;;) {
      const page: AllStreamResolvedEvent[] = await collect(
        this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: HEAD_PAGE }),
      );
      for (const { event } of page) {
        if (!event || isSystem(event)) continue;
        const checkpoint = checkpointOf(event.position);
        if (ceiling && compareCheckpoints(checkpoint, ceiling) >= 0) continue;
        return checkpoint;
      }
      const last = page[page.length - 1]?.event;
      if (page.length < HEAD_PAGE || !last) return { ...START };
      from = last.position;
      ceiling = checkpointOf(last.position);
    }
  }

  protected override async release(): Promise<void> {
    if (this.ownsClient) await this.client.dispose();
  }

  /** Events read from a stream carry their $all position only on servers >= 22.6. */
  private streamEventPosition(event: EsdbRecordedEvent): Position {
    if (!event.position) {
      throw new Error(
        `EventStoreDB returned ${event.streamId}@${event.revision} without a log position (needs >= 22.6)`,
      );
    }
    return event.position;
  }

  private async positionOf(stream: string, revision: bigint): Promise<number> {
    const [resolved] = await collect(this.client.readStream(stream, { fromRevision: revision, maxCount: 1 }));
    if (!resolved?.event) throw new Error(`${stream}@${revision} was acknowledged but cannot be read back`);
    return toNumber(this.streamEventPosition(resolved.event).commit);
  }

  private async currentVersion(stream: string): Promise<number | 'no_stream'> {
    try {
      const [resolved] = await collect(
        this.client.readStream(stream, { direction: BACKWARDS, fromRevision: END, maxCount: 1 }),
      );
      return resolved?.event ? toNumber(resolved.event.revision) + 1 : 'no_stream';
    } catch (error) {
      if (error instanceof StreamNotFoundError) return 'no_stream';
      throw error;
    }
  }
}
