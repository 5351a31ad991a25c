import type { Kysely } from 'kysely';
import type { Decider } from '../aggregates/decider.ts';
import {
  type MarkUnknown,
  type TransactionEvent,
  type TransactionState,
  transaction,
} from '../aggregates/transaction.ts';
import { handleCommand } from '../commands/command-handler.ts';
import type { Database } from '../db/schema.ts';
import type { EventRegistry } from '../events/event-registry.ts';
import type { EventStore } from '../events/event-store.ts';
import type { Logger } from '../logger.ts';
import { reconcilerMarkedUnknown } from '../metrics.ts';
import type { JobLease } from './lease.ts';
import { PollingLoop } from './polling-loop.ts';

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
  /** Several workers: each tick runs only under this lease (src/workers/lease.ts, issue 14). */
  lease?: JobLease;
}

export interface ReconcileResult {
  /** Candidates read from the read model. */
  scanned: number;
  /** Transactions this run appended `Transaction.Unconfirmed` to. */
  marked: string[];
  /** Transactions whose command failed (logged; retried on a later tick). */
  failed: string[];
}

interface Guarded {
  readonly inner: TransactionState;
  /** Events folded so far. */
  readonly events: number;
}

/**
 * The transaction decider, restricted to charges that have nothing but their reservation (one event).
 * `processing` is also reached by a boleto payment intent (`Transaction.PaymentProcessing`, after an
 * issued charge): that charge exists at the provider and must never be turned `unknown` by a timeout,
 * so for any longer stream the reconciler decides nothing. The decision itself is the transaction's.
 */
const untouchedReservation: Decider<MarkUnknown, TransactionEvent, Guarded> = {
  initialState: { inner: transaction.initialState, events: 0 },
  evolve: (state, event) => ({ inner: transaction.evolve(state.inner, event), events: state.events + 1 }),
  decide: (command, state, ctx) => (state.events === 1 ? transaction.decide(command, state.inner, ctx) : []),
};

/**
 * DESIGN.md "reserve -> call -> record outcome", SPEC 3.1: a crash between the committed reservation and
 * the recorded outcome leaves a charge `processing`. This worker finds those older than the timeout in the
 * read model (partial index `transactions_unsettled`) and appends `mark_unknown` through the decider as
 * `system:reconciler`. It has no provider port and never calls one: `unknown` is resolved only by a
 * refresh or a late answer, never by charging again.
 *
 * Several instances: a tick runs under `opts.lease` (one worker at a time). Without it, or if a lease is
 * lost, instances may pick the same rows; the append's expected version lets only one
 * `Transaction.Unconfirmed` through, the other gets WrongExpectedVersion, re-reads and re-decides
 * (now `unknown`: no-op). docs/decisions.md "Charges", "Two processes, one database".
 */
export class Reconciler {
  private readonly batchSize: number;
  private readonly now: () => Date;
  private readonly loop: PollingLoop;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly store: EventStore,
    private readonly registry: EventRegistry,
    private readonly opts: ReconcilerOptions,
  ) {
    this.batchSize = opts.batchSize ?? 100;
    this.now = opts.now ?? (() => new Date());
    this.loop = new PollingLoop(
      'reconciler',
      async () => {
        const tick = async () => (await this.runOnce()).scanned === this.batchSize;
        if (!opts.lease) return tick();
        const held = await opts.lease.run(tick);
        return held.ran && held.value;
      },
      opts.intervalMs,
      opts.logger,
    );
  }

  /** One tick: at most `batchSize` charges, oldest first. `now` is the clock of this run. */
  async runOnce(now: Date = this.now()): Promise<ReconcileResult> {
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
    const result: ReconcileResult = { scanned: candidates.length, marked: [], failed: [] };
    const deps = { store: this.store, registry: this.registry, now: () => now };
    for (const row of candidates) {
      try {
        const { events } = await handleCommand(
          deps,
          untouchedReservation,
          `transaction-${row.id}`,
          { kind: 'mark_unknown', timeoutSeconds: this.opts.timeoutSeconds },
          {
            metadata: { actor: RECONCILER_ACTOR, tenant_id: row.tenant_id, livemode: row.livemode },
            // Safe: the decision depends only on the stream, and nothing external was done on it.
            retryOnConflict: true,
            maxAttempts: 3,
          },
        );
        if (events.length > 0) {
          result.marked.push(row.id);
          reconcilerMarkedUnknown.inc(events.length);
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
    return result;
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
