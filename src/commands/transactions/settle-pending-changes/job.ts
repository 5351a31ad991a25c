import { DEFAULT_LEASE_TTL_MS, type Job, type JobOutcome } from '../../job.ts';
import { settlePendingChange } from '../reconcile/handler.ts';
import type { PayoutContext } from '../refund/payout.ts';
import { type BackoffPolicy, backoffPolicyOf, ReconcileBackoff } from '../shared/reconcile-backoff.ts';

export const SETTLER_ACTOR = 'system:reconciler';

export interface SettleOptions {
  /** At most this many charges per tick (default 50). */
  batchSize?: number;
  /** A charge whose attempt stayed open waits before the next one (default: RECONCILE_BACKOFF_*). */
  backoff?: BackoffPolicy;
}

export interface SettleResult extends JobOutcome {
  scanned: number;
  /** Charges whose pending refund or due-date change this run confirmed or closed. */
  settled: string[];
  /** Still pending (the provider could not tell yet), or the attempt failed; tried again after a backoff. */
  open: string[];
}

/**
 * SPEC 4.8, issue 13 item 8, issue 22: a refund (`refund.status` pending) or a due-date change whose provider
 * answer was uncertain, or whose reservation outlived any provider call, is settled here by reading the
 * charge at its provider (src/commands/transactions/shared/provider-changes.ts); nothing is sent again, so a
 * refund never moves money twice and a date never changes twice. A change pending for longer than
 * RECONCILE_AFTER_SECONDS (past any provider timeout) is settled, every RECONCILE_INTERVAL_MS, as
 * `system:reconciler`, under the lease `settle-pending-changes`; like the reconciler, instances without it
 * need no lock (the append's expected version lets one decision through), and a lost lease stops the run
 * before its next charge (issue 23 item 2.11).
 */
export function settlePendingChangesJob(opts: SettleOptions = {}): Job<SettleResult> {
  const batchSize = opts.batchSize ?? 50;
  return {
    name: 'settle-pending-changes',
    intervalMs: (config) => config.RECONCILE_INTERVAL_MS,
    leaseTtlMs: DEFAULT_LEASE_TTL_MS,
    async run(app, { now, signal }) {
      const olderThanSeconds = app.config.RECONCILE_AFTER_SECONDS;
      const backoff = new ReconcileBackoff(
        app.db,
        'pending_change',
        opts.backoff ?? backoffPolicyOf(app.config),
      );
      const cutoff = new Date(now.getTime() - olderThanSeconds * 1000);
      const rows = await app.db
        .selectFrom('transactions')
        .select(['id', 'tenant_id', 'livemode'])
        .where((eb) =>
          eb.or([
            eb.and([
              eb('refund_status', '=', 'pending'),
              eb('status', '=', 'paid'),
              // A refund awaiting a person is listed in the panel, not settled here.
              eb.or([eb('refund_route', 'is', null), eb('refund_route', '!=', 'operator')]),
            ]),
            eb.and([eb('pending_due_date', 'is not', null), eb('status', '=', 'pending')]),
          ]),
        )
        .where('updated_at', '<', cutoff)
        .where(backoff.notWaiting(now))
        .orderBy('updated_at')
        .limit(batchSize)
        .execute();
      const deps = { store: app.store, registry: app.events, now: () => now };
      const ctx: PayoutContext = {
        config: app.config,
        adapters: app,
        deps,
        vault: { db: app.db, config: app.config },
      };
      // A full batch does not hurry the next tick, as when this ran at the end of the reconciler's.
      const result: SettleResult = { more: false, scanned: rows.length, settled: [], open: [] };
      for (const row of rows) {
        signal?.throwIfAborted();
        let outcome: Awaited<ReturnType<typeof settlePendingChange>>;
        try {
          outcome = await settlePendingChange(deps, ctx, row, SETTLER_ACTOR, olderThanSeconds);
        } catch (err) {
          app.logger.error({ err, transaction_id: row.id }, 'reconciler: settling a pending change failed');
          outcome = 'open';
        }
        if (outcome === 'open') result.open.push(row.id);
        if (outcome === 'settled') result.settled.push(row.id);
        await backoff.record(row.id, outcome !== 'open', now);
      }
      await backoff.prune(now);
      if (result.open.length > 0) {
        app.logger.warn(
          { open: result.open.length },
          'reconciler: refunds or due-date changes still pending',
        );
      }
      return result;
    },
  };
}
