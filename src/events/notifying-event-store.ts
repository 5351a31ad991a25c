import {
  AppendListeners,
  type AppendResult,
  type Checkpoint,
  checkAppend,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type RecordedEvent,
} from './event-store.ts';

/**
 * What every adapter does alike around its own storage (DESIGN.md "The event store port"): an append is
 * checked (checkAppend) before anything is written and, once stored, wakes the in-process listeners of
 * onAppended; closing drops the listeners, then releases what the adapter holds.
 */
export abstract class NotifyingEventStore implements EventStore {
  abstract readonly kind: EventStore['kind'];
  abstract readonly supportsInlineProjections: boolean;
  /** The listeners of onAppended: an adapter's other writes (several streams at once) wake them too. */
  protected readonly appended = new AppendListeners();

  async append(
    stream: string,
    events: readonly NewEvent[],
    expected: ExpectedVersion,
  ): Promise<AppendResult> {
    checkAppend(events, expected);
    const result = await this.write(stream, events, expected);
    this.appended.notify();
    return result;
  }

  /** The adapter's part of append: stores a checked batch on one stream, or throws why it did not. */
  protected abstract write(...append: Parameters<EventStore['append']>): Promise<AppendResult>;

  abstract read(stream: string, fromVersion?: number): Promise<RecordedEvent[]>;
  abstract readAll(after: Checkpoint, limit: number): Promise<RecordedEvent[]>;
  abstract headCheckpoint(): Promise<Checkpoint>;

  onAppended(listener: () => void): () => void {
    return this.appended.add(listener);
  }

  async close(): Promise<void> {
    this.appended.clear();
    await this.release();
  }

  /** Releases what the adapter holds once its listeners are gone; nothing unless it says so. */
  protected async release(): Promise<void> {}
}
