import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import {
  type Checkpoint,
  compareCheckpoints,
  type EventStore,
  type RecordedEvent,
  START,
} from '../events/event-store.ts';
import { projectionLagSeconds, projectionPosition } from '../metrics.ts';
import { applyEvents, type Projection } from './projection.ts';

export interface RunnerOptions {
  batchSize?: number;
  /** Poll interval when caught up; an in-process append wakes the runner at once. */
  idleMs?: number;
  now?: () => Date;
  onError?: (projection: string, error: unknown) => void;
}

const HOT_POLL_MS = 10;
const HOT_WINDOW_MS = 2000;

/** Advisory-lock key of a projection, namespaced so it cannot collide with other advisory locks. */
function lockKey(name: string) {
  return sql<number>`hashtext(${`calebe:projection:${name}`})`;
}

export async function readCheckpoint(
  db: Kysely<Database> | Transaction<Database>,
  name: string,
): Promise<Checkpoint> {
  const row = await db
    .selectFrom('projection_checkpoints')
    .select(['tx', 'pos'])
    .where('name', '=', name)
    .executeTakeFirst();
  return row ? { tx: Number(row.tx), pos: Number(row.pos) } : { ...START };
}

/**
 * Async projections: catch up from a checkpoint that is written in the same transaction as the read-model
 * change, so a crash at any point resumes exactly where the last commit left off.
 *
 * Events are read outside the write transaction (the store may be EventStoreDB, or PGlite's single
 * connection); the transaction then takes the projection's advisory lock and re-checks the checkpoint, so
 * two instances never apply the same batch: the loser finds the checkpoint moved and reads again.
 */
export class ProjectionRunner {
  private readonly batchSize: number;
  private readonly idleMs: number;
  private readonly now: () => Date;
  private running = false;
  private readonly waiters = new Set<() => void>();
  /** When an in-process append last woke the runner. */
  private lastAppendAt = 0;
  private loops: Promise<void>[] = [];
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly store: EventStore,
    readonly projections: readonly Projection[],
    private readonly opts: RunnerOptions = {},
  ) {
    this.batchSize = opts.batchSize ?? 500;
    this.idleMs = opts.idleMs ?? 200;
    this.now = opts.now ?? (() => new Date());
  }

  /**
   * Applies at most one batch. Returns the number of events read past (0 when caught up, or when another
   * instance holds the projection).
   */
  async step(projection: Projection): Promise<number> {
    const from = await readCheckpoint(this.db, projection.name);
    const batch = await this.store.readAll(from, this.batchSize);
    const first = batch[0];
    if (!first) {
      projectionLagSeconds.set({ projection: projection.name }, 0);
      return 0;
    }
    projectionLagSeconds.set(
      { projection: projection.name },
      Math.max(0, (this.now().getTime() - first.recordedAt.getTime()) / 1000),
    );
    const last = batch[batch.length - 1] as RecordedEvent;
    const applied = await this.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{
        locked: boolean;
      }>`select pg_try_advisory_xact_lock(${lockKey(projection.name)}) as locked`.execute(trx);
      if (!rows[0]?.locked) return false;
      await trx
        .insertInto('projection_checkpoints')
        .values({ name: projection.name, tx: 0, pos: 0, updated_at: this.now() })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      const current = await trx
        .selectFrom('projection_checkpoints')
        .select(['tx', 'pos'])
        .where('name', '=', projection.name)
        .forUpdate()
        .executeTakeFirstOrThrow();
      if (Number(current.tx) !== from.tx || Number(current.pos) !== from.pos) return false;
      await applyEvents(projection, batch, trx);
      await trx
        .updateTable('projection_checkpoints')
        .set({ tx: last.checkpoint.tx, pos: last.checkpoint.pos, updated_at: this.now() })
        .where('name', '=', projection.name)
        .execute();
      return true;
    });
    if (!applied) return 0;
    projectionPosition.set({ projection: projection.name }, last.position);
    return batch.length;
  }

  /**
   * Applies batches until the projection has applied every event committed before the call. Waits while
   * the log is not yet readable (an older transaction still open) or another instance holds the lock.
   */
  async catchUp(projection: Projection, onProgress?: (events: number) => void): Promise<number> {
    const target = await this.store.headCheckpoint();
    let total = 0;
    while (compareCheckpoints(await readCheckpoint(this.db, projection.name), target) < 0) {
      const n = await this.step(projection);
      if (n === 0) await new Promise((r) => setTimeout(r, 10));
      total += n;
      if (n > 0) onProgress?.(n);
    }
    return total;
  }

  async catchUpAll(): Promise<void> {
    for (const p of this.projections) await this.catchUp(p);
  }

  /** Empties the read model and its checkpoint in one transaction, then replays the whole log into it. */
  async rebuild(projection: Projection, onProgress?: (events: number) => void): Promise<number> {
    await this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${lockKey(projection.name)})`.execute(trx);
      await projection.reset(trx);
      await trx
        .insertInto('projection_checkpoints')
        .values({ name: projection.name, tx: 0, pos: 0, updated_at: this.now() })
        .onConflict((oc) => oc.column('name').doUpdateSet({ tx: 0, pos: 0, updated_at: this.now() }))
        .execute();
    });
    return this.catchUp(projection, onProgress);
  }

  /**
   * Rebuilds several projections in one pass over the log (`calebe rebuild --all`): every read model and
   * checkpoint is emptied in one transaction, then each batch of `batchSize` events is read once and
   * applied to every projection (multi-row `handleBatch` where a projection has one; see catchUpTogether).
   * A projection whose checkpoint moved under it (a running instance applied a batch) leaves the shared
   * pass and is finished by its own catch-up.
   */
  async rebuildAll(
    projections: readonly Projection[],
    onProgress?: (events: number) => void,
    batchSize = 5000,
  ): Promise<number> {
    const ordered = [...projections].sort((a, b) => a.name.localeCompare(b.name));
    await this.db.transaction().execute(async (trx) => {
      for (const p of ordered) {
        await sql`select pg_advisory_xact_lock(${lockKey(p.name)})`.execute(trx);
        await p.reset(trx);
        await trx
          .insertInto('projection_checkpoints')
          .values({ name: p.name, tx: 0, pos: 0, updated_at: this.now() })
          .onConflict((oc) => oc.column('name').doUpdateSet({ tx: 0, pos: 0, updated_at: this.now() }))
          .execute();
      }
    });
    return this.catchUpTogether(ordered, onProgress, batchSize);
  }

  /**
   * Catches several projections up in one pass over the log: those at the same checkpoint (the most
   * numerous group) share each batch read, applied to each in its own transaction (with its checkpoint),
   * the projections in parallel; the others, and any whose checkpoint moves under the pass (a running instance applied a
   * batch), finish with their own catch-up. Returns the events read by the shared pass.
   */
  async catchUpTogether(
    projections: readonly Projection[],
    onProgress?: (events: number) => void,
    batchSize = 5000,
  ): Promise<number> {
    const ordered = [...projections].sort((a, b) => a.name.localeCompare(b.name));
    const target = await this.store.headCheckpoint();
    const groups = new Map<string, { from: Checkpoint; members: Projection[] }>();
    for (const p of ordered) {
      const at = await readCheckpoint(this.db, p.name);
      const key = `${at.tx}:${at.pos}`;
      const group = groups.get(key) ?? { from: at, members: [] };
      group.members.push(p);
      groups.set(key, group);
    }
    const largest = [...groups.values()].sort((a, b) => b.members.length - a.members.length)[0];
    let shared = largest?.members ?? [];
    const dropped = ordered.filter((p) => !shared.includes(p));
    let from: Checkpoint = largest?.from ?? { ...START };
    let total = 0;
    // The next batch is read while the current one is applied (another connection), and each projection
    // applies a batch in its own transaction, in parallel: the database works while this process decodes.
    const read = (after: Checkpoint) => {
      const pending = this.store.readAll(after, batchSize);
      pending.catch(() => {});
      return pending;
    };
    let next = shared.length > 0 && compareCheckpoints(from, target) < 0 ? read(from) : undefined;
    while (next && shared.length > 0 && compareCheckpoints(from, target) < 0) {
      const batch = await next;
      const last = batch.at(-1);
      if (!last) {
        await new Promise((r) => setTimeout(r, 10));
        next = read(from);
        continue;
      }
      next = compareCheckpoints(last.checkpoint, target) < 0 ? read(last.checkpoint) : undefined;
      const since = from;
      const outcomes = await Promise.all(
        shared.map((p) =>
          this.db.transaction().execute(async (trx) => {
            await sql`select pg_advisory_xact_lock(${lockKey(p.name)})`.execute(trx);
            await trx
              .insertInto('projection_checkpoints')
              .values({ name: p.name, tx: 0, pos: 0, updated_at: this.now() })
              .onConflict((oc) => oc.column('name').doNothing())
              .execute();
            const current = await readCheckpoint(trx, p.name);
            if (compareCheckpoints(current, since) !== 0) return false;
            await applyEvents(p, batch, trx);
            await trx
              .updateTable('projection_checkpoints')
              .set({ tx: last.checkpoint.tx, pos: last.checkpoint.pos, updated_at: this.now() })
              .where('name', '=', p.name)
              .execute();
            return true;
          }),
        ),
      );
      const applied = shared.filter((_, k) => outcomes[k]);
      for (const p of shared) if (!applied.includes(p)) dropped.push(p);
      shared = applied;
      from = last.checkpoint;
      total += batch.length;
      onProgress?.(batch.length);
    }
    for (const p of [...shared, ...dropped]) await this.catchUp(p);
    return total;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.store.onAppended(() => {
      this.lastAppendAt = Date.now();
      this.wakeAll();
    });
    this.loops = this.projections.map((p) => this.loop(p));
  }

  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.wakeAll();
    await Promise.all(this.loops);
    this.loops = [];
  }

  private async loop(projection: Projection): Promise<void> {
    while (this.running) {
      let n = 0;
      try {
        n = await this.step(projection);
      } catch (error) {
        this.opts.onError?.(projection.name, error);
      }
      if (n === 0 && this.running) await this.idle(this.recentlyAppended() ? HOT_POLL_MS : this.idleMs);
    }
  }

  private wakeAll(): void {
    for (const wake of this.waiters) wake();
  }

  /**
   * A fresh append may not be readable yet (an older transaction anywhere in the cluster holds the snapshot
   * xmin back), so for a moment after one, an empty read is retried quickly instead of after the idle wait.
   */
  private recentlyAppended(): boolean {
    return Date.now() - this.lastAppendAt < HOT_WINDOW_MS;
  }

  private idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }
}
