import { type Kysely, sql } from 'kysely';
import type { Database } from '../../../db/schema.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { DEFAULT_LEASE_TTL_MS, type Job, type JobDeps, type JobOutcome } from '../../job.ts';
import { record } from '../create/handler.ts';
import type { SubaccountCtx } from '../provider.ts';
import { loadSubaccount } from '../record.ts';
import { CREATING_GRACE_MS, consultSubaccount } from '../refresh/handler.ts';

export const SUBACCOUNT_RECONCILER_ACTOR = 'system:subaccount-reconciler';

export interface SubaccountReconcileOptions {
  /** At most this many records consulted per run (default 20). */
  batchSize?: number;
}

export interface SubaccountReconcileResult extends JobOutcome {
  /** The records this run claimed (due, and not claimed by another run). */
  claimed: string[];
  /** `creating` records left by a crash that this run recorded `unknown` (`interrupted`) first. */
  interrupted: string[];
  /** Records the consult settled (`active` or `failed`), or found settled already. */
  settled: string[];
  /** Records still `unknown` after the consult (no usable answer): consulted again after their backoff. */
  unresolved: string[];
  /** Records whose run threw (logged; consulted again after their backoff). */
  failed: string[];
}

/**
 * SPEC 3.6 ("`creating`, `unknown` need consult or reconciliation"), issue 28 item 2; docs/decisions.md
 * "Subaccount reconciliation (issue 28 item 2)". Every RECONCILE_INTERVAL_MS, under the lease
 * `subaccount-reconciler`, the job takes the subaccount links still `creating` or `unknown` whose reservation
 * is older than RECONCILE_AFTER_SECONDS (and than the creation call's timeout, PROVIDER_TIMEOUT_MS + the
 * refresh's grace: whatever creation call they had is over), oldest first, and:
 * 1. a `creating` one (a crash between the reservation and the record: nothing answered) is first recorded
 *    `unknown` with reason `interrupted`, with no provider call, as the transactions' reconciler marks a
 *    `processing` charge `unknown` before it reads it;
 * 2. each `unknown` one is consulted with the refresh's own code (../refresh/handler.ts `consultSubaccount`):
 *    found -> `active` (tokens sealed), not found -> `failed` (`not_found_at_provider`), no usable answer
 *    (provider unreachable) -> it stays `unknown`.
 * It never sends a creation: a consult only reads (`Marketplace/Get` or `List`).
 *
 * Per-record backoff and claim in one statement (`subaccount_reconcile`, migration 0032): claiming a record
 * counts one more attempt and sets its next one `RECONCILE_BACKOFF_SECONDS * 2^(attempts - 1)` ahead (at most
 * RECONCILE_BACKOFF_MAX_SECONDS), in the same `INSERT ... ON CONFLICT DO UPDATE ... WHERE` that only takes a
 * due record. So a record the provider cannot answer about waits longer each time without holding the batch,
 * a run that dies mid-consult leaves its records to the next due time, and two runs at once (no lease, or
 * one lost) never consult one record twice: the second's upsert sees the first's committed claim and skips
 * it. A record seen settled (by this run, a refresh, a link) loses its row at the end of the run.
 */
export function subaccountReconcileJob(
  opts: SubaccountReconcileOptions = {},
): Job<SubaccountReconcileResult> {
  const batchSize = opts.batchSize ?? 20;
  return {
    name: 'subaccount-reconciler',
    intervalMs: (config) => config.RECONCILE_INTERVAL_MS,
    leaseTtlMs: DEFAULT_LEASE_TTL_MS,
    async run(app, { now, signal }) {
      const { config } = app;
      const afterMs = Math.max(
        config.RECONCILE_AFTER_SECONDS * 1000,
        config.PROVIDER_TIMEOUT_MS + CREATING_GRACE_MS,
      );
      const claimed = await claimDue(app.db, now, new Date(now.getTime() - afterMs), batchSize, {
        baseSeconds: config.RECONCILE_BACKOFF_SECONDS,
        maxSeconds: Math.max(config.RECONCILE_BACKOFF_SECONDS, config.RECONCILE_BACKOFF_MAX_SECONDS),
      });
      const result: SubaccountReconcileResult = {
        more: claimed.length === batchSize,
        claimed,
        interrupted: [],
        settled: [],
        unresolved: [],
        failed: [],
      };
      const ctx = contextOf(app, now);
      for (const id of claimed) {
        signal?.throwIfAborted();
        try {
          const outcome = await reconcileOne(ctx, id, now, afterMs);
          if (outcome.interrupted) result.interrupted.push(id);
          if (outcome.settled) result.settled.push(id);
          else result.unresolved.push(id);
        } catch (err) {
          result.failed.push(id);
          app.logger.error({ err, subaccount_id: id }, 'subaccount reconciler: consult failed');
        }
      }
      await forgetSettled(app.db, result.settled);
      return result;
    },
  };
}

const METADATA: EventMetadata = { actor: SUBACCOUNT_RECONCILER_ACTOR };

/** The job's view of the application context, its time the run's. */
function contextOf(app: JobDeps, now: Date): SubaccountCtx {
  return { ...app, now: () => now };
}

/**
 * One claimed record, from its stream (the read model may trail): settled already -> nothing; `creating`
 * past its call -> `unknown` (`interrupted`), then consulted; `unknown` -> consulted.
 */
async function reconcileOne(
  ctx: SubaccountCtx,
  id: string,
  now: Date,
  afterMs: number,
): Promise<{ settled: boolean; interrupted: boolean }> {
  let loaded = await loadSubaccount({ store: ctx.store, registry: ctx.events }, id);
  if (!loaded) return { settled: true, interrupted: false };
  let interrupted = false;
  if (loaded.state.status === 'creating') {
    // Its creation call (if any) has ended: the request that reserved it crashed before recording.
    if (now.getTime() - loaded.updatedAt.getTime() < afterMs) return { settled: false, interrupted };
    loaded = await record(
      ctx,
      id,
      { kind: 'record_uncertain', errorCode: 'interrupted', providerReference: null },
      METADATA,
    );
    interrupted = loaded.state.status === 'unknown';
  }
  if (loaded.state.status !== 'unknown') return { settled: true, interrupted };
  const consulted = await consultSubaccount(ctx, loaded, METADATA);
  return { settled: consulted.settled, interrupted };
}

/**
 * Claims up to `batchSize` due records (see the job): one more attempt each, the next one after its backoff.
 * A record whose claim another run committed first is not due any more, so it is not returned here.
 */
async function claimDue(
  db: Kysely<Database>,
  now: Date,
  cutoff: Date,
  batchSize: number,
  policy: { baseSeconds: number; maxSeconds: number },
): Promise<string[]> {
  const { baseSeconds, maxSeconds } = policy;
  const first = new Date(now.getTime() + Math.min(baseSeconds, maxSeconds) * 1000);
  const { rows } = await sql<{ subaccount_id: string }>`
    insert into subaccount_reconcile as r (subaccount_id, attempts, next_attempt_at)
    select s.id, 1, ${first}::timestamptz
    from subaccounts s
    where s.status in ('creating', 'unknown') and s.created_at < ${cutoff}
      and not exists (
        select 1 from subaccount_reconcile w where w.subaccount_id = s.id and w.next_attempt_at > ${now})
    order by s.created_at, s.id
    limit ${batchSize}
    on conflict (subaccount_id) do update set
      attempts = r.attempts + 1,
      -- The stored count is the attempts before this one: base * 2^count, capped.
      next_attempt_at = ${now}::timestamptz + make_interval(secs => least(${maxSeconds}::float8,
        ${baseSeconds}::float8 * power(2, least(r.attempts, 30))))
      where r.next_attempt_at <= ${now}
    returning subaccount_id`.execute(db);
  return rows.map((r) => r.subaccount_id);
}

/**
 * Drops the schedule of records settled by this run, and of any the read model shows settled or gone (a
 * refresh, a `/link`, or the creation's own late answer settled them).
 */
async function forgetSettled(db: Kysely<Database>, settled: readonly string[]): Promise<void> {
  if (settled.length > 0) {
    await db.deleteFrom('subaccount_reconcile').where('subaccount_id', 'in', settled).execute();
  }
  await sql`delete from subaccount_reconcile r where not exists (
    select 1 from subaccounts s where s.id = r.subaccount_id and s.status in ('creating', 'unknown'))`.execute(
    db,
  );
}
