import type { Kysely } from 'kysely';
import { saoPauloDate } from '../aggregates/transaction.ts';
import { markUnknownIfStale, settleAtProvider } from '../commands/transactions/reconcile/handler.ts';
import type { RefreshContext } from '../commands/transactions/refresh/handler.ts';
import type { Database } from '../db/schema.ts';
import type { EventRegistry } from '../events/event-registry.ts';
import type { EventStore } from '../events/event-store.ts';
import type { Logger } from '../logger.ts';
import { reconcilerMarkedUnknown } from '../metrics.ts';
import type { JobLease } from './lease.ts';
import { PollingLoop } from './polling-loop.ts';
import { type BackoffPolicy, ReconcileBackoff } from './reconcile-backoff.ts';

export const RECONCILER_ACTOR = 'system:reconciler';

export interface ReconcilerOptions {
  /** A reservation older than this, still `processing`, becomes `unknown` (RECONCILE_AFTER_SECONDS). */
  timeoutSeconds: number;
  /** Pause between ticks (RECONCILE_INTERVAL_MS). */
  intervalMs: number;
  /** At most this many charges per tick. */
  batchSize?: number;
  now?: () => Date;
  logger?: Pick<Logger, 'warn' | 'error'>;
  /**
   * Settling charges of external providers with the refresh's own query (issue 13 item 7); off when absent
   * (the worker then only marks stale reservations `unknown`).
   */
  external?: {
    config: RefreshContext['config'];
    adapters: RefreshContext['adapters'];
    /** At most this many provider reads per tick (default 20). */
    batchSize?: number;
    /** Charges untouched for longer than this are left to a person (default 7 days). */
    windowSeconds?: number;
    /** A charge whose read failed waits before the next one (./reconcile-backoff.ts). */
    backoff?: BackoffPolicy;
  };
  /** Refunds and due-date changes left pending by an uncertain answer (src/workers/settle-pending-changes.ts). */
  pendingChanges?: { runOnce(now: Date, signal?: AbortSignal): Promise<unknown> };
  /**
   * Several workers: each tick runs only under this lease (src/workers/lease.ts, issue 14), renewed while
   * the tick runs; a tick whose lease is lost stops before its next charge (issue 23 item 2.11).
   */
  lease?: JobLease;
}

export interface ReconcileResult {
  /** Candidates read from the read model. */
  scanned: number;
  /** Transactions this run appended `Transaction.Unconfirmed` to. */
  marked: string[];
  /** Transactions whose command failed (logged; retried on a later tick). */
  failed: string[];
  /** External charges read at the provider this run (issue 13 item 7). */
  checked: number;
  /** Those whose read applied something (or had nothing to apply). */
  refreshed: string[];
  /** Those the provider read could not settle this time (failed read, nothing found): retried later. */
  unresolved: string[];
}

/**
 * DESIGN.md "reserve -> call -> record outcome", SPEC 3.1: a crash between the committed reservation and
 * the recorded outcome leaves a charge `processing`. This worker finds those older than the timeout in the
 * read model (partial index `transactions_unsettled`) and appends `mark_unknown` through the decider as
 * `system:reconciler`. It never creates a charge: with `external` set it then settles charges of external
 * providers by the refresh's own query (see `settleExternal`), so `unknown` is resolved by reading the
 * provider (by id, or by reference), never by charging again. It is also where a refresh's failed follow-up
 * read is retried in the background (SPEC 3.1).
 *
 * Several instances: a tick runs under `opts.lease` (one worker at a time), which its heartbeat keeps for a
 * slow tick; a tick that loses it (its session ended) stops before the next charge and the loop logs
 * `LeaseLostError` (issue 23 item 2.11). Without a lease, or for the charge in hand when it is lost,
 * instances may pick the same rows; the append's expected version lets only one
 * `Transaction.Unconfirmed` through, the other gets WrongExpectedVersion, re-reads and re-decides
 * (now `unknown`: no-op). docs/decisions.md "Charges", "Two processes, one database".
 */
export class Reconciler {
  private readonly batchSize: number;
  private readonly now: () => Date;
  private readonly loop: PollingLoop;
  private readonly backoff: ReconcileBackoff;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly store: EventStore,
    private readonly registry: EventRegistry,
    private readonly opts: ReconcilerOptions,
  ) {
    this.batchSize = opts.batchSize ?? 100;
    this.now = opts.now ?? (() => new Date());
    this.backoff = new ReconcileBackoff(db, 'provider_read', opts.external?.backoff);
    this.loop = new PollingLoop(
      'reconciler',
      async () => {
        const tick = async (signal?: AbortSignal) => {
          const more = (await this.runOnce(this.now(), signal)).scanned === this.batchSize;
          signal?.throwIfAborted();
          await opts.pendingChanges?.runOnce(this.now(), signal);
          return more;
        };
        if (!opts.lease) return tick();
        const held = await opts.lease.run(tick);
        return held.ran && held.value;
      },
      opts.intervalMs,
      opts.logger,
    );
  }

  /**
   * One tick: at most `batchSize` charges, oldest first. `now` is the clock of this run; `signal` (the
   * lease's) stops it between charges once the lease is lost, with the signal's reason.
   */
  async runOnce(now: Date = this.now(), signal?: AbortSignal): Promise<ReconcileResult> {
    const cutoff = new Date(now.getTime() - this.opts.timeoutSeconds * 1000);
    // `status = 'processing'` implies the partial index predicate; `sequence = 1`: nothing after the
    // reservation was applied (a boleto intent back in `processing` has a longer stream).
    const candidates = await this.db
      .selectFrom('transactions')
      .select(['id', 'tenant_id', 'livemode'])
      .where('status', '=', 'processing')
      .where('sequence', '=', '1')
      .where('created_at', '<', cutoff)
      .orderBy('created_at')
      .limit(this.batchSize)
      .execute();
    const result: ReconcileResult = {
      scanned: candidates.length,
      marked: [],
      failed: [],
      checked: 0,
      refreshed: [],
      unresolved: [],
    };
    const deps = { store: this.store, registry: this.registry, now: () => now };
    for (const row of candidates) {
      signal?.throwIfAborted();
      try {
        const appended = await markUnknownIfStale(deps, row, this.opts.timeoutSeconds, RECONCILER_ACTOR);
        if (appended > 0) {
          result.marked.push(row.id);
          reconcilerMarkedUnknown.inc(appended);
          this.opts.logger?.warn(
            { transaction_id: row.id, tenant_id: row.tenant_id },
            'reconciler: charge left processing past the timeout marked unknown',
          );
        }
      } catch (err) {
        result.failed.push(row.id);
        this.opts.logger?.error({ err, transaction_id: row.id }, 'reconciler: mark_unknown failed');
      }
    }
    if (this.opts.external) await this.settleExternal(now, this.opts.external, result, signal);
    return result;
  }

  /**
   * Issue 13 item 7: external charges that a refresh would settle, read with the same code path
   * (src/commands/transactions/refresh/handler.ts) as `system:reconciler`, oldest first, at most `batchSize` per tick:
   * stuck in `processing` (a boleto payment intent) or `unknown` (with its external id, or looked up by
   * reference), a production boleto still without its Pix before its due date (SPEC 4.2), and a double
   * payment whose Pix refund is still owed (SPEC 2.2). Only charges untouched for `timeoutSeconds` (a
   * creation or refresh in progress finishes first) and touched within the window. A charge whose read
   * failed waits out its backoff (./reconcile-backoff.ts) so that it cannot hold the batch every tick.
   */
  private async settleExternal(
    now: Date,
    external: NonNullable<ReconcilerOptions['external']>,
    result: ReconcileResult,
    signal?: AbortSignal,
  ): Promise<void> {
    const cutoff = new Date(now.getTime() - this.opts.timeoutSeconds * 1000);
    const horizon = new Date(now.getTime() - (external.windowSeconds ?? 7 * 86_400) * 1000);
    const rows = await this.db
      .selectFrom('transactions')
      .select(['id', 'tenant_id', 'livemode'])
      .where('simulated', '=', false)
      .where('provider_id', 'is not', null)
      .where('updated_at', '<', cutoff)
      .where('updated_at', '>', horizon)
      .where((eb) =>
        eb.or([
          eb('status', 'in', ['processing', 'unknown']),
          eb.and([
            eb('status', '=', 'pending'),
            eb('method', '=', 'boleto'),
            eb('environment', '=', 'production'),
            eb('boleto_pix_copy_paste', 'is', null),
            eb('boleto_due_date', '>=', saoPauloDate(now)),
          ]),
          eb('duplicate_refund', 'in', ['due', 'attempted']),
        ]),
      )
      .where(this.backoff.notWaiting(now))
      .orderBy('updated_at')
      .limit(external.batchSize ?? 20)
      .execute();
    const deps = { store: this.store, registry: this.registry, now: () => now };
    for (const row of rows) {
      signal?.throwIfAborted();
      result.checked += 1;
      let outcome: Awaited<ReturnType<typeof settleAtProvider>> | 'failed';
      try {
        outcome = await settleAtProvider(
          { deps, config: external.config, adapters: external.adapters },
          row,
          RECONCILER_ACTOR,
        );
      } catch (err) {
        outcome = 'failed';
        this.opts.logger?.error({ err, transaction_id: row.id }, 'reconciler: provider refresh failed');
      }
      if (outcome === 'failed') result.failed.push(row.id);
      if (outcome === 'unresolved') result.unresolved.push(row.id);
      if (outcome === 'applied') result.refreshed.push(row.id);
      await this.backoff.record(row.id, outcome === 'applied' || outcome === 'none', now);
    }
    await this.backoff.prune(now);
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
