import type { Kysely } from 'kysely';
import { settlePendingChange } from '../commands/transactions/reconcile/handler.ts';
import type { PayoutContext } from '../commands/transactions/refund/payout.ts';
import type { AdapterContext } from '../commands/transactions/shared/provider-changes.ts';
import type { Database } from '../db/schema.ts';
import type { EventRegistry } from '../events/event-registry.ts';
import type { EventStore } from '../events/event-store.ts';
import type { Logger } from '../logger.ts';
import { type BackoffPolicy, ReconcileBackoff } from './reconcile-backoff.ts';

export const SETTLER_ACTOR = 'system:reconciler';

export interface SettleOptions {
  /** A change pending for longer than this is settled (RECONCILE_AFTER_SECONDS: past any provider timeout). */
  olderThanSeconds: number;
  batchSize?: number;
  /** A charge whose attempt stayed open waits before the next one (./reconcile-backoff.ts). */
  backoff?: BackoffPolicy;
  logger?: Pick<Logger, 'warn' | 'error'>;
}

export interface SettleResult {
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
 * refund never moves money twice and a date never changes twice. Called from the reconciler's loop; like
 * it, several instances need no lock (the append's expected version lets one decision through).
 */
export class PendingChangesSettler {
  private readonly batchSize: number;
  private readonly backoff: ReconcileBackoff;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly store: EventStore,
    private readonly registry: EventRegistry,
    private readonly adapters: Pick<AdapterContext, 'config' | 'adapters'>,
    private readonly opts: SettleOptions,
  ) {
    this.batchSize = opts.batchSize ?? 50;
    this.backoff = new ReconcileBackoff(db, 'pending_change', opts.backoff);
  }

  /** `signal`: the reconciler's lease; once it is lost the run stops before the next charge (issue 23 item 2.11). */
  async runOnce(now: Date = new Date(), signal?: AbortSignal): Promise<SettleResult> {
    const cutoff = new Date(now.getTime() - this.opts.olderThanSeconds * 1000);
    const rows = await this.db
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
      .where(this.backoff.notWaiting(now))
      .orderBy('updated_at')
      .limit(this.batchSize)
      .execute();
    const deps = { store: this.store, registry: this.registry, now: () => now };
    const ctx: PayoutContext = {
      ...this.adapters,
      deps,
      vault: { db: this.db, config: this.adapters.config },
    };
    const result: SettleResult = { scanned: rows.length, settled: [], open: [] };
    for (const row of rows) {
      signal?.throwIfAborted();
      let outcome: Awaited<ReturnType<typeof settlePendingChange>>;
      try {
        outcome = await settlePendingChange(deps, ctx, row, SETTLER_ACTOR, this.opts.olderThanSeconds);
      } catch (err) {
        this.opts.logger?.error(
          { err, transaction_id: row.id },
          'reconciler: settling a pending change failed',
        );
        outcome = 'open';
      }
      if (outcome === 'open') result.open.push(row.id);
      if (outcome === 'settled') result.settled.push(row.id);
      await this.backoff.record(row.id, outcome !== 'open', now);
    }
    await this.backoff.prune(now);
    if (result.open.length > 0) {
      this.opts.logger?.warn(
        { open: result.open.length },
        'reconciler: refunds or due-date changes still pending',
      );
    }
    return result;
  }
}
