import { saoPauloDate } from '../../../aggregates/transaction.ts';
import { reconcilerMarkedUnknown } from '../../../metrics.ts';
import { DEFAULT_LEASE_TTL_MS, type Job, type JobDeps, type JobOutcome } from '../../job.ts';
import { type BackoffPolicy, backoffPolicyOf, ReconcileBackoff } from '../shared/reconcile-backoff.ts';
import { markUnknownIfStale, settleAtProvider } from './handler.ts';

export const RECONCILER_ACTOR = 'system:reconciler';

export interface ReconcileOptions {
  /** At most this many charges per tick (default 100). */
  batchSize?: number;
  /**
   * Settling charges of external providers with the refresh's own query (issue 13 item 7); on unless
   * `false` (the job then only marks stale reservations `unknown`).
   */
  external?:
    | false
    | {
        /** At most this many provider reads per tick (default 20). */
        batchSize?: number;
        /** Charges untouched for longer than this are left to a person (default 7 days). */
        windowSeconds?: number;
        /** A charge whose read failed waits before the next one (default: RECONCILE_BACKOFF_*). */
        backoff?: BackoffPolicy;
      };
}

export interface ReconcileResult extends JobOutcome {
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
 * the recorded outcome leaves a charge `processing`. This job finds those older than RECONCILE_AFTER_SECONDS
 * in the read model (partial index `transactions_unsettled`) and appends `mark_unknown` through the decider
 * as `system:reconciler`, every RECONCILE_INTERVAL_MS (at once again while a full batch came back). It never
 * creates a charge: it then settles charges of external providers by the refresh's own query (see
 * `settleExternal`), so `unknown` is resolved by reading the provider (by id, or by reference), never by
 * charging again. It is also where a refresh's failed follow-up read is retried in the background (SPEC 3.1).
 *
 * Several instances: a tick runs under the lease `reconciler` (one worker at a time), which its heartbeat
 * keeps for a slow tick; a tick that loses it (its session ended) stops before the next charge and the
 * runner logs `LeaseLostError` (issue 23 item 2.11). Without a lease, or for the charge in hand when it is
 * lost, instances may pick the same rows; the append's expected version lets only one
 * `Transaction.Unconfirmed` through, the other gets WrongExpectedVersion, re-reads and re-decides
 * (now `unknown`: no-op). docs/decisions.md "Charges", "Two processes, one database".
 */
export function reconcileJob(opts: ReconcileOptions = {}): Job<ReconcileResult> {
  const batchSize = opts.batchSize ?? 100;
  return {
    name: 'reconciler',
    intervalMs: (config) => config.RECONCILE_INTERVAL_MS,
    leaseTtlMs: DEFAULT_LEASE_TTL_MS,
    async run(app, { now, signal }) {
      const timeoutSeconds = app.config.RECONCILE_AFTER_SECONDS;
      const cutoff = new Date(now.getTime() - timeoutSeconds * 1000);
      // `status = 'processing'` implies the partial index predicate; `sequence = 1`: nothing after the
      // reservation was applied (a boleto intent back in `processing` has a longer stream).
      const candidates = await app.db
        .selectFrom('transactions')
        .select(['id', 'tenant_id', 'livemode'])
        .where('status', '=', 'processing')
        .where('sequence', '=', '1')
        .where('created_at', '<', cutoff)
        .orderBy('created_at')
        .limit(batchSize)
        .execute();
      const result: ReconcileResult = {
        more: candidates.length === batchSize,
        scanned: candidates.length,
        marked: [],
        failed: [],
        checked: 0,
        refreshed: [],
        unresolved: [],
      };
      const deps = { store: app.store, registry: app.events, now: () => now };
      for (const row of candidates) {
        signal?.throwIfAborted();
        try {
          const appended = await markUnknownIfStale(deps, row, timeoutSeconds, RECONCILER_ACTOR);
          if (appended > 0) {
            result.marked.push(row.id);
            reconcilerMarkedUnknown.inc(appended);
            app.logger.warn(
              { transaction_id: row.id, tenant_id: row.tenant_id },
              'reconciler: charge left processing past the timeout marked unknown',
            );
          }
        } catch (err) {
          result.failed.push(row.id);
          app.logger.error({ err, transaction_id: row.id }, 'reconciler: mark_unknown failed');
        }
      }
      if (opts.external !== false) await settleExternal(app, now, opts.external ?? {}, result, signal);
      return result;
    },
  };
}

/**
 * Issue 13 item 7: external charges that a refresh would settle, read with the same code path
 * (src/commands/transactions/refresh/handler.ts) as `system:reconciler`, oldest first, at most `batchSize` per tick:
 * stuck in `processing` (a boleto payment intent) or `unknown` (with its external id, or looked up by
 * reference), a production boleto still without its Pix before its due date (SPEC 4.2), and a double
 * payment whose Pix refund is still owed (SPEC 2.2). Only charges untouched for RECONCILE_AFTER_SECONDS (a
 * creation or refresh in progress finishes first) and touched within the window. A charge whose read
 * failed waits out its backoff (../shared/reconcile-backoff.ts) so that it cannot hold the batch every tick.
 */
async function settleExternal(
  app: JobDeps,
  now: Date,
  external: Exclude<ReconcileOptions['external'], false | undefined>,
  result: ReconcileResult,
  signal?: AbortSignal,
): Promise<void> {
  const { config } = app;
  const backoff = new ReconcileBackoff(app.db, 'provider_read', external.backoff ?? backoffPolicyOf(config));
  const cutoff = new Date(now.getTime() - config.RECONCILE_AFTER_SECONDS * 1000);
  const horizon = new Date(now.getTime() - (external.windowSeconds ?? 7 * 86_400) * 1000);
  const rows = await app.db
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
    .where(backoff.notWaiting(now))
    .orderBy('updated_at')
    .limit(external.batchSize ?? 20)
    .execute();
  const deps = { store: app.store, registry: app.events, now: () => now };
  for (const row of rows) {
    signal?.throwIfAborted();
    result.checked += 1;
    let outcome: Awaited<ReturnType<typeof settleAtProvider>> | 'failed';
    try {
      outcome = await settleAtProvider({ deps, config, adapters: app }, row, RECONCILER_ACTOR);
    } catch (err) {
      outcome = 'failed';
      app.logger.error({ err, transaction_id: row.id }, 'reconciler: provider refresh failed');
    }
    if (outcome === 'failed') result.failed.push(row.id);
    if (outcome === 'unresolved') result.unresolved.push(row.id);
    if (outcome === 'applied') result.refreshed.push(row.id);
    await backoff.record(row.id, outcome === 'applied' || outcome === 'none', now);
  }
  await backoff.prune(now);
}
