import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import {
  type Checkpoint,
  compareCheckpoints,
  type EventStore,
  type RecordedEvent,
  START,
} from '../events/event-store.ts';
import { applyEvents, type BulkLoader, type Projection } from '../events/projection.ts';
import { projectionLagSeconds, projectionPosition } from '../metrics.ts';

export interface RunnerOptions {
  batchSize?: number;
  /** Poll interval when caught up; an in-process append wakes the runner at once. */
  idleMs?: number;
  now?: () => Date;
  onError?: (projection: string, error: unknown) => void;
  /**
   * The database runs `copyFromStdin` statements (PostgreSQL through openDatabase; not PGlite): bulk loads
   * may write with COPY (src/db/copy-from-stdin.ts).
   */
  copyFromStdin?: boolean;
}

/** Retries after an in-process append that is not readable yet: from 10 ms, doubling up to 1 s. */
const HOT_POLL_MS = 10;
const HOT_POLL_MAX_MS = 1000;

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
  /** In-process appends seen so far: a loop that saw them all at the head may wait the idle interval. */
  private appends = 0;
  private loops: Promise<void>[] = [];
  private unsubscribe: (() => void) | undefined;
  /** Projections whose `bulkLoad.restore` this runner has run since it last began a bulk load of them. */
  private readonly restored = new Set<string>();

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
    await this.ensureRestored(projection);
    const from = await readCheckpoint(this.db, projection.name);
    const batch = await this.boundedByDependencies(
      projection,
      await this.store.readAll(from, this.batchSize),
    );
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

  /** The prefix of `batch` that every read model `projection` reads (run by this runner) has applied. */
  private async boundedByDependencies(
    projection: Projection,
    batch: RecordedEvent[],
  ): Promise<RecordedEvent[]> {
    const deps = (projection.after ?? []).filter((name) => this.projections.some((p) => p.name === name));
    if (deps.length === 0 || batch.length === 0) return batch;
    let bound: Checkpoint | undefined;
    for (const name of deps) {
      const at = await readCheckpoint(this.db, name);
      if (!bound || compareCheckpoints(at, bound) < 0) bound = at;
    }
    const limit = bound ?? { ...START };
    return batch.filter((e) => compareCheckpoints(e.checkpoint, limit) <= 0);
  }

  /**
   * Applies batches until the projection has applied every event committed before the call. Waits while
   * the log is not yet readable (an older transaction still open) or another instance holds the lock.
   */
  async catchUp(projection: Projection, onProgress?: (events: number) => void): Promise<number> {
    await this.ensureRestored(projection);
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

  /**
   * Waits until each of `projections` has applied every event committed before the call, helping the
   * background loops with batches of its own (the advisory lock keeps a batch applied once). One head and one
   * checkpoint query when they are already there.
   */
  async reachHead(projections: readonly Projection[]): Promise<void> {
    const target = await this.store.headCheckpoint();
    const rows = await this.db
      .selectFrom('projection_checkpoints')
      .select(['name', 'tx', 'pos'])
      .where(
        'name',
        'in',
        projections.map((p) => p.name),
      )
      .execute();
    for (const projection of projections) {
      const row = rows.find((r) => r.name === projection.name);
      let at: Checkpoint = row ? { tx: Number(row.tx), pos: Number(row.pos) } : { ...START };
      while (compareCheckpoints(at, target) < 0) {
        // Not readable yet (an older transaction is open) or another instance holds the lock: poll.
        if ((await this.step(projection)) === 0) await new Promise((r) => setTimeout(r, 5));
        at = await readCheckpoint(this.db, projection.name);
      }
    }
  }

  async catchUpAll(): Promise<void> {
    for (const p of this.projections) await this.catchUp(p);
  }

  /** Empties the read model and its checkpoint in one transaction, then replays the whole log into it. */
  async rebuild(projection: Projection, onProgress?: (events: number) => void): Promise<number> {
    await this.db.transaction().execute((trx) => this.reset(projection, trx));
    return this.catchUp(projection, onProgress);
  }

  /** Under the projection's lock: its read model emptied and its checkpoint back at the start. */
  private async reset(projection: Projection, trx: Transaction<Database>): Promise<void> {
    await sql`select pg_advisory_xact_lock(${lockKey(projection.name)})`.execute(trx);
    await projection.reset(trx);
    await trx
      .insertInto('projection_checkpoints')
      .values({ name: projection.name, tx: 0, pos: 0, updated_at: this.now() })
      .onConflict((oc) => oc.column('name').doUpdateSet({ tx: 0, pos: 0, updated_at: this.now() }))
      .execute();
  }

  /**
   * Rebuilds several projections in one pass over the log (`calebe rebuild --all`): every read model and
   * checkpoint is emptied in one transaction, then each batch of `batchSize` events is read once and
   * applied to every projection (multi-row `handleBatch` where a projection has one; see catchUpTogether).
   * A projection whose checkpoint moved under it (a running instance applied a batch) leaves the shared
   * pass and is finished by its own catch-up.
   *
   * A projection with a `bulkLoad` begins it in the reset transaction (e.g. drops its secondary indexes) and
   * applies the pass through its loader; its `restore` runs when it leaves the pass, before its final
   * catch-up (`step`), and in any case before this returns or throws. A process killed midway leaves it to
   * the next `step` of any runner (a start, a catch-up, another rebuild).
   */
  async rebuildAll(
    projections: readonly Projection[],
    onProgress?: (events: number) => void,
    batchSize = 5000,
  ): Promise<number> {
    const ordered = [...projections].sort((a, b) => a.name.localeCompare(b.name));
    const loaders = new Map<Projection, BulkLoader>();
    let total: number;
    try {
      await this.db.transaction().execute(async (trx) => {
        for (const p of ordered) {
          await this.reset(p, trx);
          if (p.bulkLoad) {
            this.restored.delete(p.name);
            loaders.set(p, await p.bulkLoad.begin(trx, { copyFromStdin: this.opts.copyFromStdin === true }));
          }
        }
      });
      total = await this.pass(ordered, onProgress, batchSize, loaders, true);
    } catch (error) {
      for (const p of ordered) {
        try {
          await this.ensureRestored(p);
        } catch (restoreError) {
          this.opts.onError?.(p.name, restoreError);
        }
      }
      throw error;
    }
    // Already done by the pass's final catch-ups; kept explicit: a rebuild never returns without it.
    for (const p of ordered) await this.ensureRestored(p);
    return total;
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
    for (const p of projections) await this.ensureRestored(p);
    return this.pass(projections, onProgress, batchSize, new Map(), false);
  }

  /**
   * catchUpTogether's pass; in a rebuild (`rebuilding`), a projection with a loader applies its batches
   * through it, and the batches commit without waiting for the WAL flush.
   */
  private async pass(
    projections: readonly Projection[],
    onProgress: ((events: number) => void) | undefined,
    batchSize: number,
    loaders: ReadonlyMap<Projection, BulkLoader>,
    rebuilding: boolean,
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
    const from: Checkpoint = largest?.from ?? { ...START };
    // A loader must see the whole log: none for a pass that does not start at the beginning.
    const using = compareCheckpoints(from, START) === 0 ? loaders : new Map<Projection, BulkLoader>();
    // The log is read once, in batches, ahead of the projections (another connection). Each projection
    // applies the batches in order, each in its own transaction with its checkpoint, at its own pace up to
    // AHEAD batches in front of the slowest: no barrier after each batch, so this process prepares the next
    // batch of one projection while the database applies another's.
    const AHEAD = 2;
    const batches = new Map<number, Promise<RecordedEvent[]>>();
    const sizes = new Map<number, number>();
    let read = 0;
    let lastRead: Promise<RecordedEvent[]> | undefined;
    const readAfter = async (after: Checkpoint): Promise<RecordedEvent[]> => {
      while (compareCheckpoints(after, target) < 0) {
        const batch = await this.store.readAll(after, batchSize);
        if (batch.length > 0) return batch;
        await new Promise((r) => setTimeout(r, 10)); // not readable yet: an older transaction is open
      }
      return [];
    };
    /** Batch `k` of the pass; `[]` past the target. Read in order, each after the previous one's end. */
    const batchAt = (k: number): Promise<RecordedEvent[]> => {
      for (; read <= k; read++) {
        const previous = lastRead;
        const pending = previous
          ? previous.then((b) => {
              const last = b.at(-1);
              return last ? readAfter(last.checkpoint) : [];
            })
          : readAfter(from);
        pending.catch(() => {});
        batches.set(read, pending);
        lastRead = pending;
      }
      return batches.get(k) as Promise<RecordedEvent[]>;
    };
    const active = new Set(shared);
    const applied = new Map<Projection, number>(shared.map((p) => [p, 0]));
    let reported = 0;
    let total = 0;
    let failed = false;
    const waiters = new Set<() => void>();
    const changed = () => {
      for (const wake of [...waiters]) wake();
    };
    const progress = () =>
      new Promise<void>((resolve) => {
        const wake = () => {
          waiters.delete(wake);
          resolve();
        };
        waiters.add(wake);
      });
    const slowest = () => Math.min(...[...active].map((p) => applied.get(p) ?? 0));
    /** Reports (and frees) the batches every projection still in the pass has applied. */
    const advance = () => {
      const upTo = active.size > 0 ? slowest() : reported;
      for (; reported < upTo; reported++) {
        const events = sizes.get(reported) ?? 0;
        batches.delete(reported);
        sizes.delete(reported);
        total += events;
        onProgress?.(events);
      }
    };
    const apply = (p: Projection, batch: readonly RecordedEvent[], since: Checkpoint, last: RecordedEvent) =>
      this.db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(${lockKey(p.name)})`.execute(trx);
        await trx
          .insertInto('projection_checkpoints')
          .values({ name: p.name, tx: 0, pos: 0, updated_at: this.now() })
          .onConflict((oc) => oc.column('name').doNothing())
          .execute();
        const current = await readCheckpoint(trx, p.name);
        if (compareCheckpoints(current, since) !== 0) return false;
        // A rebuild's batch needs no durable commit: lost in a crash, it is lost with its checkpoint, and
        // the next catch-up applies it again. The pass does not wait for each WAL flush.
        if (rebuilding) await sql`set local synchronous_commit = off`.execute(trx);
        await applyEvents(p, batch, trx, using.get(p));
        await trx
          .updateTable('projection_checkpoints')
          .set({ tx: last.checkpoint.tx, pos: last.checkpoint.pos, updated_at: this.now() })
          .where('name', '=', p.name)
          .execute();
        return true;
      });
    const run = async (p: Projection) => {
      let since = from;
      try {
        for (let k = 0; !failed; k++) {
          while (!failed && k - slowest() > AHEAD) await progress();
          if (failed) return;
          const batch = await batchAt(k);
          const last = batch.at(-1);
          if (!last || failed) return;
          sizes.set(k, batch.length);
          batchAt(k + 1); // read ahead while this one is applied
          if (!(await apply(p, batch, since, last))) {
            active.delete(p);
            dropped.push(p);
            // Whoever moved its checkpoint applies batches the ordinary way: back with what the loader took.
            await this.ensureRestored(p);
            return;
          }
          since = last.checkpoint;
          applied.set(p, k + 1);
          advance();
          changed();
        }
      } catch (error) {
        failed = true;
        throw error;
      } finally {
        changed();
      }
    };
    // Settled, not all: after a failure, no projection is still writing when the caller restores.
    const outcomes = await Promise.allSettled(shared.map(run));
    const rejected = outcomes.find((o) => o.status === 'rejected');
    if (rejected) throw rejected.reason;
    advance();
    shared = shared.filter((p) => active.has(p));
    for (const p of [...shared, ...dropped]) await this.catchUp(p);
    return total;
  }

  /**
   * Runs a projection's `bulkLoad.restore` (under its advisory lock) unless this runner already did since
   * it last began a bulk load of it: the first batch a runner applies finds the read model complete even
   * when a rebuild died after `BulkLoad.begin`.
   */
  private async ensureRestored(projection: Projection): Promise<void> {
    const bulk = projection.bulkLoad;
    if (!bulk || this.restored.has(projection.name)) return;
    await this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${lockKey(projection.name)})`.execute(trx);
      await bulk.restore(trx);
    });
    this.restored.add(projection.name);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.store.onAppended(() => {
      this.appends++;
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
    let settled = 0;
    let retry = HOT_POLL_MS;
    while (this.running) {
      let n = 0;
      try {
        n = await this.step(projection);
      } catch (error) {
        this.opts.onError?.(projection.name, error);
      }
      if (n > 0 || !this.running) {
        retry = HOT_POLL_MS;
        continue;
      }
      const appends = this.appends;
      if (appends > settled && (await this.behindHead(projection))) {
        // An append of this process is committed but not readable yet: an older transaction anywhere in the
        // cluster holds the snapshot's xmin back. Retry soon, backing off, rather than wait the idle interval.
        await this.idle(retry);
        retry = Math.min(retry * 2, HOT_POLL_MAX_MS, this.idleMs);
        continue;
      }
      settled = appends;
      retry = HOT_POLL_MS;
      // An append during the check found no waiter to wake: read again instead of sleeping through it.
      if (this.appends === appends) await this.idle(this.idleMs);
    }
  }

  private wakeAll(): void {
    for (const wake of this.waiters) wake();
  }

  /** The store holds events past the projection's checkpoint, readable or not. */
  private async behindHead(projection: Projection): Promise<boolean> {
    try {
      const [at, head] = await Promise.all([
        readCheckpoint(this.db, projection.name),
        this.store.headCheckpoint(),
      ]);
      return at.tx < head.tx || (at.tx === head.tx && at.pos < head.pos);
    } catch (error) {
      this.opts.onError?.(projection.name, error);
      return false;
    }
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
