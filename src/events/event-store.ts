/**
 * The event store port (DESIGN.md "The event store port"). Every adapter passes the same contract suite
 * (test/integration/event-store-contract.ts).
 */

/** Who caused an event and within which request; carried on every event. */
export interface EventMetadata {
  request_id?: string;
  /** `api_key:<id>` | `user:<id>` | `system:<job>` */
  actor: string;
  tenant_id?: string | null;
  livemode?: boolean;
  correlation_id?: string;
  causation_id?: string;
}

export interface NewEvent {
  /** uuid chosen by the writer; retrying the same batch with the same ids is idempotent. */
  id: string;
  type: string;
  schemaVersion?: number;
  data: unknown;
  metadata: EventMetadata;
}

/**
 * A resumable position in the global log, ordered lexicographically (tx, pos).
 * PostgreSQL: (transaction_id, global_position). EventStoreDB: (commit, prepare).
 * Both fit in a double without loss for any realistic log (< 2^53).
 */
export interface Checkpoint {
  tx: number;
  pos: number;
}

export const START: Checkpoint = Object.freeze({ tx: 0, pos: 0 });

export function compareCheckpoints(a: Checkpoint, b: Checkpoint): number {
  return a.tx - b.tx || a.pos - b.pos;
}

export interface RecordedEvent {
  id: string;
  stream: string;
  /** 1-based position within the stream. */
  version: number;
  /** Global position (PostgreSQL: global_position; EventStoreDB: commit position). */
  position: number;
  checkpoint: Checkpoint;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: EventMetadata;
  recordedAt: Date;
}

/** `no_stream`: the stream must not exist; `any`: no check; a number: the stream's current version. */
export type ExpectedVersion = 'no_stream' | 'any' | number;

export interface AppendResult {
  /** The stream's version after the append (the version of its last event). */
  version: number;
  /** Global position of the last appended event. */
  position: number;
  /**
   * When the store recorded the events (their `recordedAt`), if the adapter knows it without a read
   * (PostgreSQL: the insert returns it), so a command can answer from its fold without reading back.
   */
  recordedAt?: Date;
}

/** One stream's part of {@link EventStore.appendMany}. */
export interface StreamAppend {
  stream: string;
  events: readonly NewEvent[];
  expected: ExpectedVersion;
  /**
   * Append only while none of these streams exists; otherwise the whole call is refused with
   * WrongExpectedVersionError on `stream` (a cheap guard checked in the same statement: issue 14).
   */
  unlessExists?: readonly string[];
}

export class WrongExpectedVersionError extends Error {
  override readonly name = 'WrongExpectedVersionError';
  constructor(
    readonly stream: string,
    readonly expected: ExpectedVersion,
    readonly actual: number | 'no_stream',
  ) {
    super(`stream ${stream}: expected version ${expected}, actual ${actual}`);
  }
}

/** An event id already stored, and not as an exact retry of the same batch. */
export class DuplicateEventIdError extends Error {
  override readonly name = 'DuplicateEventIdError';
  constructor(readonly stream: string) {
    super(`stream ${stream}: an event id of this batch is already stored elsewhere`);
  }
}

/** What every adapter refuses before writing anything: an empty batch, an expected version that is none. */
export function checkAppend(events: readonly NewEvent[], expected: ExpectedVersion): void {
  if (events.length === 0) throw new RangeError('append needs at least one event');
  if (typeof expected === 'number' && (!Number.isInteger(expected) || expected < 0)) {
    throw new RangeError(`invalid expected version ${expected}`);
  }
}

/** The in-process listeners of {@link EventStore.onAppended}, which an adapter calls after each append. */
export class AppendListeners {
  private readonly listeners = new Set<() => void>();

  add(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(): void {
    for (const listener of this.listeners) listener();
  }

  clear(): void {
    this.listeners.clear();
  }
}

export interface EventStore {
  readonly kind: 'postgres' | 'eventstoredb';
  /** Whether projections can run inside the append's transaction (PostgreSQL only). */
  readonly supportsInlineProjections: boolean;
  append(stream: string, events: readonly NewEvent[], expected: ExpectedVersion): Promise<AppendResult>;
  /**
   * Optional: appends to several streams in one transaction, all or nothing, with each stream's inline
   * projections (SPEC 3.1: an idempotency claim and the reservation commit together). A refused stream
   * fails the whole call with WrongExpectedVersionError (no same-batch retry recognition: callers read).
   * Adapters without multi-stream transactions (EventStoreDB) leave it out; callers append one by one.
   */
  appendMany?(appends: readonly StreamAppend[]): Promise<AppendResult[]>;
  read(stream: string, fromVersion?: number): Promise<RecordedEvent[]>;
  /** Events strictly after `after`, in commit order, never skipping one that commits later. */
  readAll(after: Checkpoint, limit: number): Promise<RecordedEvent[]>;
  /**
   * Checkpoint of the newest committed event. A reader whose checkpoint reaches it has seen everything
   * committed before the call (readers may trail it while older transactions are still open).
   */
  headCheckpoint(): Promise<Checkpoint>;
  /** Called in-process after each successful append, so local subscribers wake without polling. */
  onAppended(listener: () => void): () => void;
  close(): Promise<void>;
}
