import { type Kysely, sql, type Transaction } from 'kysely';
import { constantQuery } from '../db/constant-query.ts';
import type { Database } from '../db/schema.ts';
import { executeSql, q, type SqlText } from '../db/sql-text.ts';
import {
  type AppendResult,
  type Checkpoint,
  checkAppend,
  DuplicateEventIdError,
  type EventMetadata,
  type ExpectedVersion,
  type NewEvent,
  type RecordedEvent,
  START,
  type StreamAppend,
  WrongExpectedVersionError,
} from './event-store.ts';
import { NotifyingEventStore } from './notifying-event-store.ts';
import { applyEvents, handles, type Projection } from './projection.ts';

/** A row of `events` as the reads select it (also the payer page's read: src/commands/checkouts/page-read.ts). */
export interface EventRow {
  global_position: string;
  transaction_id: string;
  stream_id: string;
  version: string;
  event_id: string;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: EventMetadata;
  recorded_at: Date | string;
}

const COLUMN_LIST =
  'global_position, transaction_id::text as transaction_id, stream_id, version, event_id, type, schema_version, data, metadata, recorded_at';
const COLUMNS = sql.raw(COLUMN_LIST);

/**
 * One stream, as constant text (issue 14: a named prepared statement, no query building per read).
 * Exported for the benchmarks' floor server (bench/floor-server.ts).
 */
export const READ_STREAM_SQL = `select ${COLUMN_LIST} from events where stream_id = $1 and version >= $2 order by version`;
const readStream = constantQuery<EventRow>(READ_STREAM_SQL);

export function toRecorded(row: EventRow): RecordedEvent {
  const position = Number(row.global_position);
  return {
    id: row.event_id,
    stream: row.stream_id,
    version: Number(row.version),
    position,
    checkpoint: { tx: Number(row.transaction_id), pos: position },
    type: row.type,
    schemaVersion: row.schema_version,
    data: row.data,
    metadata: row.metadata,
    recordedAt: row.recorded_at instanceof Date ? row.recorded_at : new Date(row.recorded_at),
  };
}

/** What an append returns when inline projections need RecordedEvents (issue 14: never data or metadata). */
interface AppendedRow {
  version: string;
  global_position: string;
  transaction_id?: string;
  recorded_at: Date | string;
}

const APPENDED_COLUMNS = q.raw(
  'version, global_position, transaction_id::text as transaction_id, recorded_at',
);
const APPENDED_TIMES = q.raw('version, global_position, recorded_at');

/** The RecordedEvent of an event just appended: the caller's payload, the insert's positions and time. */
function appended(stream: string, row: AppendedRow, event: NewEvent): RecordedEvent {
  return toRecorded({
    global_position: row.global_position,
    transaction_id: row.transaction_id as string,
    stream_id: stream,
    version: row.version,
    event_id: event.id,
    type: event.type,
    schema_version: event.schemaVersion ?? 1,
    data: event.data,
    metadata: event.metadata,
    recorded_at: row.recorded_at,
  });
}

/** What an append answers from the row of its last event. */
function resultOf(row: Omit<AppendedRow, 'transaction_id'>): AppendResult {
  const at = row.recorded_at;
  return {
    version: Number(row.version),
    position: Number(row.global_position),
    recordedAt: at instanceof Date ? at : new Date(at),
  };
}

function isEventIdViolation(error: unknown): boolean {
  const e = error as { code?: string; constraint?: string; message?: string };
  return e?.code === '23505' && (e.constraint === 'events_event_id_key' || !!e.message?.includes('event_id'));
}

/** One new stream for {@link PostgresEventStore.appendStreams}. */
export interface NewStream {
  stream: string;
  /** `recordedAt` backdates an event (seeding history); absent, the transaction's `now()` as usual. */
  events: readonly (NewEvent & { recordedAt?: Date })[];
}

/**
 * PostgreSQL adapter. One statement per append: the stream row is claimed or advanced first (that row lock
 * is the only serialization, per stream), then the batch is inserted from the new version. No global lock.
 */
export class PostgresEventStore extends NotifyingEventStore {
  readonly kind = 'postgres' as const;
  readonly supportsInlineProjections = true;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly inline: readonly Projection[] = [],
  ) {
    super();
  }

  protected async write(
    stream: string,
    events: readonly NewEvent[],
    expected: ExpectedVersion,
  ): Promise<AppendResult> {
    const projections = this.projectionsFor(events);
    const fused = this.fusedProjections(stream, events, expected, projections);
    let result: AppendResult | undefined;
    try {
      result =
        projections.length === 0 || fused
          ? await this.insert(this.db, stream, events, expected, projections, [], fused)
          : await this.db.transaction().execute(async (trx) => {
              const r = await this.insert(trx, stream, events, expected, projections);
              // Nothing was written: leave the transaction without committing any projection work.
              if (!r) throw new NoAppend();
              return r;
            });
    } catch (error) {
      if (!(error instanceof NoAppend) && !isEventIdViolation(error)) throw error;
    }
    return result ?? (await this.explainRefusal(stream, events, expected));
  }

  private projectionsFor(events: readonly NewEvent[]): readonly Projection[] {
    return this.inline.filter((p) => events.some((e) => handles(p, e.type)));
  }

  /**
   * Several streams in one SQL transaction, each with its inline projections, all or nothing (SPEC 3.1: the
   * idempotency claim and the reservation commit together; issue 14). A refused stream (version, or one of
   * its `unlessExists` streams present) rolls everything back and is WrongExpectedVersionError on it.
   */
  async appendMany(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    for (const a of appends) {
      checkAppend(a.events, a.expected);
      if (a.unlessExists?.length && a.expected !== 'no_stream' && a.expected !== 0) {
        throw new RangeError('unlessExists guards only a no_stream append');
      }
    }
    const single = this.oneStatement(appends);
    if (single) {
      let rows: (AppendedRow & { part: number })[];
      try {
        ({ rows } = await executeSql<AppendedRow & { part: number }>(this.db, single));
      } catch (error) {
        if (isEventIdViolation(error)) throw new DuplicateEventIdError((appends[0] as StreamAppend).stream);
        if ((error as { code?: string }).code !== INCOMPLETE) throw error;
        rows = [];
      }
      if (rows.length === 0) return this.refuseMany(appends);
      const results = appends.map((_, i) => {
        let last: (typeof rows)[number] | undefined;
        for (const r of rows)
          if (r.part === i && (!last || Number(r.version) > Number(last.version))) last = r;
        return resultOf(last as (typeof rows)[number]);
      });
      this.appended.notify();
      return results;
    }
    let refused: StreamAppend | undefined;
    let results: AppendResult[];
    try {
      results = await this.db.transaction().execute(async (trx) => {
        const out: AppendResult[] = [];
        for (const a of appends) {
          const projections = this.projectionsFor(a.events);
          const fused = this.fusedProjections(a.stream, a.events, a.expected, projections);
          const r = await this.insert(
            trx,
            a.stream,
            a.events,
            a.expected,
            projections,
            a.unlessExists,
            fused,
          );
          if (!r) {
            refused = a;
            throw new NoAppend();
          }
          out.push(r);
        }
        return out;
      });
    } catch (error) {
      if (isEventIdViolation(error)) throw new DuplicateEventIdError((appends[0] as StreamAppend).stream);
      if (!(error instanceof NoAppend) || !refused) throw error;
      throw new WrongExpectedVersionError(
        refused.stream,
        refused.expected,
        await this.versionOf(refused.stream),
      );
    }
    this.appended.notify();
    return results;
  }

  /**
   * `appendMany` as ONE statement (issue 14: no BEGIN, no COMMIT, one round trip for a claim and its
   * reservation) when every stream is new (`no_stream`) and at most one has inline projections, all fused.
   * Each stream's row is claimed only once the previous stream's events are in (`exists`), so a refusal
   * stops the chain; a later stream refused after an earlier one went in makes the last part's count zero
   * and the final division fails the whole statement (nothing written). Undefined: the transaction path.
   */
  private oneStatement(appends: readonly StreamAppend[]) {
    if (appends.length === 0 || appends.some((a) => a.expected !== 'no_stream')) return undefined;
    const withProjections = appends
      .map((a, i) => ({ i, projections: this.projectionsFor(a.events) }))
      .filter((x) => x.projections.length > 0);
    if (withProjections.length > 1) return undefined;
    const projected = withProjections[0];
    let fused: SqlText[] = [];
    if (projected) {
      const a = appends[projected.i] as StreamAppend;
      const parts = this.fusedProjections(a.stream, a.events, a.expected, projected.projections);
      if (!parts) return undefined;
      fused = parts;
    }
    // The projected stream's insert is `ins`, the name its projections' CTEs read.
    const ins = (i: number) => q.raw(projected?.i === i ? 'ins' : `ins_${i}`);
    const ctes = appends.map((a, i) => {
      const n = a.events.length;
      const guard = a.unlessExists?.length
        ? q`and not exists (select 1 from streams where stream_id = any(${[...a.unlessExists]}::text[]))`
        : q``;
      const after = i > 0 ? q`and exists (select 1 from ${ins(i - 1)})` : q``;
      return q`claimed_${q.raw(String(i))} as (
          insert into streams (stream_id, version) select ${a.stream}, ${n} where true ${guard} ${after}
          on conflict do nothing returning version),
        batch_${q.raw(String(i))} as (${batchOf(a.events)}),
        ${ins(i)} as (
          insert into events (stream_id, version, event_id, type, schema_version, data, metadata)
          select ${a.stream}, c.version - ${n} + b.ord, b.event_id, b.type, b.schema_version, b.data, b.metadata
          from claimed_${q.raw(String(i))} c, batch_${q.raw(String(i))} b
          returning version, global_position, recorded_at)`;
    });
    const lastPart = ins(appends.length - 1);
    const selects = appends.map((_, i) =>
      i === 0
        ? q`select 0 as part, version, global_position, recorded_at,
            1 / (select count(*) from ${lastPart})::int as complete from ${ins(0)}`
        : q`select ${q.raw(String(i))}, version, global_position, recorded_at, 1 from ${ins(i)}`,
    );
    return q`
      with ${q.join([...ctes, ...fused])}
      ${q.join(selects, q` union all `)}`;
  }

  /** Why a one-statement `appendMany` wrote nothing: the first stream refused, as WrongExpectedVersionError. */
  private async refuseMany(appends: readonly StreamAppend[]): Promise<never> {
    for (const a of appends) {
      const actual = await this.versionOf(a.stream);
      let blocked = actual !== 'no_stream';
      if (!blocked && a.unlessExists?.length) {
        const guard = await this.db
          .selectFrom('streams')
          .select('stream_id')
          .where('stream_id', 'in', [...a.unlessExists])
          .executeTakeFirst();
        blocked = guard !== undefined;
      }
      if (blocked) throw new WrongExpectedVersionError(a.stream, a.expected, actual);
    }
    // Refused, and nothing is in the way any more (a concurrent writer's transaction rolled back): say so.
    const first = appends[0] as StreamAppend;
    throw new WrongExpectedVersionError(first.stream, first.expected, 'no_stream');
  }

  /**
   * The inline projections' CTEs for a one-event append whose version is known, when every projection that
   * handles it offers them (Projection.fused); otherwise undefined and the projections run one by one.
   */
  private fusedProjections(
    stream: string,
    events: readonly NewEvent[],
    expected: ExpectedVersion,
    projections: readonly Projection[],
  ): SqlText[] | undefined {
    if (projections.length === 0 || events.length !== 1) return undefined;
    if (expected === 'any' || !projections.every((p) => p.fused)) return undefined;
    const version = expected === 'no_stream' ? 1 : expected + 1;
    // Times and positions are the statement's own (`ins`); the event is the caller's, already validated.
    const event = appended(
      stream,
      {
        version: String(version),
        global_position: '0',
        transaction_id: '0',
        recorded_at: new Date(Number.NaN),
      },
      events[0] as NewEvent,
    );
    const written = new Map<string, string>();
    const ctes: SqlText[] = [];
    for (const p of projections) {
      const part = p.fused?.(event, written);
      if (!part) return undefined;
      ctes.push(...part);
    }
    return ctes.length > 0 ? ctes : undefined;
  }

  private async insert(
    executor: Kysely<Database> | Transaction<Database>,
    stream: string,
    events: readonly NewEvent[],
    expected: ExpectedVersion,
    projections: readonly Projection[] = [],
    unlessExists: readonly string[] = [],
    fused?: SqlText[],
  ): Promise<AppendResult | undefined> {
    const n = events.length;
    const claim =
      unlessExists.length > 0 && (expected === 'no_stream' || expected === 0)
        ? q`insert into streams (stream_id, version) select ${stream}, ${n}
                where not exists (select 1 from streams where stream_id = any(${[...unlessExists]}::text[]))
                on conflict do nothing returning version`
        : expected === 'any'
          ? q`insert into streams as s (stream_id, version) values (${stream}, ${n})
              on conflict (stream_id) do update set version = s.version + excluded.version returning version`
          : expected === 'no_stream' || expected === 0
            ? q`insert into streams (stream_id, version) values (${stream}, ${n})
                on conflict do nothing returning version`
            : q`update streams set version = version + ${n}
                where stream_id = ${stream} and version = ${expected} returning version`;
    const batch = batchOf(events);
    if (fused) {
      // Issue 14: the append and its inline projections in one statement (atomic alone: no transaction).
      const { rows } = await executeSql<AppendedRow>(
        executor,
        q`
        with claimed as (${claim}), batch as (${batch}),
        ins as (
          insert into events (stream_id, version, event_id, type, schema_version, data, metadata)
          select ${stream}, claimed.version - ${n} + batch.ord, batch.event_id, batch.type, batch.schema_version,
            batch.data, batch.metadata
          from claimed, batch
          returning version, global_position, recorded_at),
        ${q.join(fused)}
        select version, global_position, recorded_at from ins`,
      );
      const row = rows[0];
      return row ? resultOf(row) : undefined;
    }
    // Issue 14: never the whole rows back. Inline projections get RecordedEvents built from the caller's
    // own objects (already validated by the registry) plus what only the insert knows: version, position,
    // transaction id and time. Nothing is re-parsed from jsonb.
    const { rows } = await executeSql<AppendedRow>(
      executor,
      q`
      with claimed as (${claim}), batch as (${batch})
      insert into events (stream_id, version, event_id, type, schema_version, data, metadata)
      select ${stream}, claimed.version - ${n} + batch.ord, batch.event_id, batch.type, batch.schema_version,
        batch.data, batch.metadata
      from claimed, batch
      returning ${projections.length > 0 ? APPENDED_COLUMNS : APPENDED_TIMES}`,
    );
    if (rows.length === 0) return undefined;
    let last = rows[0] as AppendedRow;
    for (const row of rows) if (Number(row.version) > Number(last.version)) last = row;
    if (projections.length > 0) {
      const trx = executor as Transaction<Database>;
      const first = Number(last.version) - n + 1;
      const recorded = rows
        .map((row) => appended(stream, row, events[Number(row.version) - first] as NewEvent))
        .sort((a, b) => a.version - b.version);
      for (const event of recorded) {
        for (const p of projections) if (handles(p, event.type)) await p.handle(event, trx);
      }
    }
    return resultOf(last);
  }

  /**
   * Bulk path (issue 7: `calebe dev seed`, imports): creates many streams, each `no_stream`, in one SQL
   * transaction and three statements (claim every stream row, insert every event from one jsonb parameter,
   * then the inline projections' batch forms). All or nothing: a stream that already exists fails the whole
   * call with WrongExpectedVersionError, an event id already stored with DuplicateEventIdError. Not part of
   * the EventStore port: EventStoreDB has no multi-stream transaction and stamps its own times, so an
   * explicit `recordedAt` exists only here. Inline projections see the batch per projection (all of a
   * projection's events, then the next projection's), not interleaved per event as single appends do.
   */
  async appendStreams(streams: readonly NewStream[]): Promise<AppendResult[]> {
    if (streams.length === 0) return [];
    if (streams.some((s) => s.events.length === 0)) throw new RangeError('append needs at least one event');
    const names = streams.map((s) => s.stream);
    let ord = 0;
    const input = streams.flatMap((s) =>
      s.events.map((e, i) => ({
        ord: ord++,
        stream_id: s.stream,
        version: i + 1,
        event_id: e.id,
        type: e.type,
        schema_version: e.schemaVersion ?? 1,
        data: e.data,
        metadata: e.metadata,
        recorded_at: e.recordedAt?.toISOString() ?? null,
      })),
    );
    let results: AppendResult[];
    try {
      results = await this.db.transaction().execute(async (trx) => {
        const claimed = await sql<{ stream_id: string }>`
          insert into streams (stream_id, version)
          select * from unnest(${names}::text[], ${streams.map((s) => s.events.length)}::bigint[])
          on conflict do nothing returning stream_id`.execute(trx);
        if (claimed.rows.length !== streams.length) {
          const got = new Set(claimed.rows.map((r) => r.stream_id));
          const taken = names.find((n) => !got.has(n)) as string;
          const current = await trx
            .selectFrom('streams')
            .select('version')
            .where('stream_id', '=', taken)
            .executeTakeFirst();
          throw new WrongExpectedVersionError(
            taken,
            'no_stream',
            current ? Number(current.version) : 'no_stream',
          );
        }
        const { rows } = await sql<
          Omit<EventRow, 'event_id' | 'type' | 'schema_version' | 'data' | 'metadata'>
        >`
          insert into events (stream_id, version, event_id, type, schema_version, data, metadata, recorded_at)
          select e.stream_id, e.version, e.event_id, e.type, e.schema_version, e.data, e.metadata,
            coalesce(e.recorded_at, now())
          from jsonb_to_recordset(${JSON.stringify(input)}::jsonb) as e(ord bigint, stream_id text,
            version bigint, event_id uuid, type text, schema_version int, data jsonb, metadata jsonb,
            recorded_at timestamptz)
          order by e.ord
          returning global_position, transaction_id::text as transaction_id, stream_id, version, recorded_at`.execute(
          trx,
        );
        // The caller's objects supply what was written; the rows add positions and times.
        const byKey = new Map(input.map((e) => [`${e.version}:${e.stream_id}`, e]));
        const recorded = rows.map((row) => {
          const e = byKey.get(`${row.version}:${row.stream_id}`) as (typeof input)[number];
          return toRecorded({
            ...row,
            event_id: e.event_id,
            type: e.type,
            schema_version: e.schema_version,
            data: e.data,
            metadata: e.metadata,
          });
        });
        recorded.sort((a, b) => a.position - b.position);
        const types = new Set(recorded.map((e) => e.type));
        for (const p of this.inline) {
          if ([...types].some((t) => handles(p, t))) await applyEvents(p, recorded, trx);
        }
        const last = new Map<string, AppendResult>();
        for (const e of recorded) {
          const held = last.get(e.stream);
          if (!held || e.version > held.version)
            last.set(e.stream, { version: e.version, position: e.position });
        }
        return names.map((n) => last.get(n) as AppendResult);
      });
    } catch (error) {
      if (isEventIdViolation(error)) throw new DuplicateEventIdError(names[0] as string);
      throw error;
    }
    this.appended.notify();
    return results;
  }

  /**
   * Nothing was appended. If this exact batch is already stored at the expected place (a retry whose first
   * answer was lost), answer as the first time did; otherwise say why it was refused.
   */
  private async explainRefusal(
    stream: string,
    events: readonly NewEvent[],
    expected: ExpectedVersion,
  ): Promise<AppendResult> {
    const { rows } = await sql<{
      event_id: string;
      stream_id: string;
      version: string;
      global_position: string;
      recorded_at: Date | string;
    }>`
      select event_id, stream_id, version, global_position, recorded_at from events
      where event_id = any(${events.map((e) => e.id)}::uuid[])`.execute(this.db);
    if (rows.length > 0) {
      const byId = new Map(rows.map((r) => [r.event_id, r]));
      const stored = events.map((e) => byId.get(e.id));
      const first = stored[0] ? Number(stored[0].version) : -1;
      const sameBatch =
        stored.every((r, i) => r && r.stream_id === stream && Number(r.version) === first + i) &&
        (expected === 'any' || first - 1 === (expected === 'no_stream' ? 0 : expected));
      if (!sameBatch) throw new DuplicateEventIdError(stream);
      // As the first answer was: the retry is recognised, not appended again.
      return resultOf(stored[stored.length - 1] as (typeof rows)[number]);
    }
    throw new WrongExpectedVersionError(stream, expected, await this.versionOf(stream));
  }

  /** The stream's current version, as a refusal names it. */
  private async versionOf(stream: string): Promise<number | 'no_stream'> {
    const current = await this.db
      .selectFrom('streams')
      .select('version')
      .where('stream_id', '=', stream)
      .executeTakeFirst();
    return current ? Number(current.version) : 'no_stream';
  }

  async read(stream: string, fromVersion = 1): Promise<RecordedEvent[]> {
    const { rows } = await readStream(this.db, [stream, fromVersion]);
    return rows.map(toRecorded);
  }

  async readAll(after: Checkpoint, limit: number): Promise<RecordedEvent[]> {
    // Only transactions below the snapshot's xmin are finished, so nothing can still commit before `after`.
    // ORDER BY names the table: the bare name would bind to the text-cast output column.
    const { rows } = await sql<EventRow>`
      select ${COLUMNS} from events
      where (transaction_id, global_position) > (${String(after.tx)}::xid8, ${after.pos})
        and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
      order by events.transaction_id, events.global_position
      limit ${limit}`.execute(this.db);
    return rows.map(toRecorded);
  }

  async headCheckpoint(): Promise<Checkpoint> {
    const { rows } = await sql<{ tx: string; pos: string }>`
      select transaction_id::text as tx, global_position as pos from events
      order by events.transaction_id desc, events.global_position desc limit 1`.execute(this.db);
    const row = rows[0];
    return row ? { tx: Number(row.tx), pos: Number(row.pos) } : { ...START };
  }
}

/** The batch's rows as a row source: one event as plain parameters (no arrays to encode), more via unnest. */
function batchOf(events: readonly NewEvent[]): SqlText {
  const only = events[0] as NewEvent;
  return events.length === 1
    ? q`select ${only.id}::uuid as event_id, ${only.type}::text as type, ${only.schemaVersion ?? 1}::int as schema_version,
            ${JSON.stringify(only.data)}::jsonb as data, ${JSON.stringify(only.metadata)}::jsonb as metadata, 1::bigint as ord`
    : q`select * from unnest(
            ${events.map((e) => e.id)}::uuid[], ${events.map((e) => e.type)}::text[],
            ${events.map((e) => e.schemaVersion ?? 1)}::int[],
            ${events.map((e) => JSON.stringify(e.data))}::jsonb[],
            ${events.map((e) => JSON.stringify(e.metadata))}::jsonb[]
          ) with ordinality as e(event_id, type, schema_version, data, metadata, ord)`;
}

/** Division by zero: how the one-statement `appendMany` refuses a later stream after an earlier one. */
const INCOMPLETE = '22012';

class NoAppend extends Error {}
