import type { Kysely } from 'kysely';
import { settlePendingChange } from '../commands/transactions/reconcile/handler.ts';
import type { AdapterContext } from '../commands/transactions/shared/provider-changes.ts';
import type { Database } from '../db/schema.ts';
import type { EventRegistry } from '../events/event-registry.ts';
import type { EventStore } from '../events/event-store.ts';
import type { Logger } from '../logger.ts';

export const SETTLER_ACTOR = 'system:reconciler';

export interface SettleOptions {
  /** A change pending for longer than this is settled (RECONCILE_AFTER_SECONDS: past any provider timeout). */
  olderThanSeconds: number;
  batchSize?: number;
  logger?: Pick<Logger, 'warn' | 'error'>;
}

export interface SettleResult {
  scanned: number;
  /** Charges whose pending refund or due-date change this run confirmed or closed. */
  settled: string[];
  /** Still pending (the provider could not tell yet), or the attempt failed; tried again next tick. */
  open: string[];
}

/**
 * SPEC 4.8, issue 13 item 8: a refund (`refund.status` pending) or a due-date change whose provider answer
 * was uncertain is settled here when nobody asks again: the charge is read at its provider first and the
 * request is sent again only when the read shows it did not happen (src/commands/transactions/shared/provider-changes.ts), so
 * a refund never moves money twice and a date never changes twice. Called from the reconciler's loop; like
 * it, several instances need no lock (the append's expected version lets one decision through, and the
 * provider's own state refuses a second integral refund).
 */
export class PendingChangesSettler {
  private readonly batchSize: number;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly store: EventStore,
    private readonly registry: EventRegistry,
    private readonly adapters: Pick<AdapterContext, 'config' | 'adapters'>,
    private readonly opts: SettleOptions,
  ) {
    this.batchSize = opts.batchSize ?? 50;
  }

  async runOnce(now: Date = new Date()): Promise<SettleResult> {
    const cutoff = new Date(now.getTime() - this.opts.olderThanSeconds * 1000);
    const rows = await this.db
      .selectFrom('transactions')
      .select(['id', 'tenant_id', 'livemode'])
      .where((eb) =>
        eb.or([
          eb.and([eb('refund_status', '=', 'pending'), eb('status', '=', 'paid')]),
          eb.and([eb('pending_due_date', 'is not', null), eb('status', '=', 'pending')]),
        ]),
      )
      .where('updated_at', '<', cutoff)
      .orderBy('updated_at')
      .limit(this.batchSize)
      .execute();
    const deps = { store: this.store, registry: this.registry, now: () => now };
    const ctx: AdapterContext = { ...this.adapters, deps };
    const result: SettleResult = { scanned: rows.length, settled: [], open: [] };
    for (const row of rows) {
      try {
        const outcome = await settlePendingChange(deps, ctx, row, SETTLER_ACTOR);
        if (outcome === 'none') continue;
        const settled = outcome === 'settled';
        (settled ? result.settled : result.open).push(row.id);
      } catch (err) {
        result.open.push(row.id);
        this.opts.logger?.error(
          { err, transaction_id: row.id },
          'reconciler: settling a pending change failed',
        );
      }
    }
    if (result.open.length > 0) {
      this.opts.logger?.warn(
        { open: result.open.length },
        'reconciler: refunds or due-date changes still pending',
      );
    }
    return result;
  }
}
