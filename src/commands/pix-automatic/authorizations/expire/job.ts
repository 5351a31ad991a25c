import { sql } from 'kysely';
import {
  needsProviderClose,
  pixAutomaticAuthorization,
} from '../../../../aggregates/pix-automatic-authorization.ts';
import { NO_DIAGNOSTICS } from '../../../../providers/port.ts';
import { handleCommand } from '../../../command-handler.ts';
import { DEFAULT_LEASE_TTL_MS, type Job, type JobDeps, type JobOutcome } from '../../../job.ts';
import { authorizationStream, loadAuthorization } from '../load.ts';
import { type RevokeOutcome, revokeAtProvider } from '../revoke/handler.ts';

export interface AuthorizationExpiryOptions {
  /** Pause between runs when nothing more is due (default 1 minute). */
  intervalMs?: number;
  /** At most this many authorizations per run (default 100). */
  batchSize?: number;
  /** How long a claimed row is kept from other runs (default 2 minutes, longer than a provider call). */
  holdMs?: number;
}

export interface AuthorizationExpiryResult extends JobOutcome {
  /** The creations this run found unanswered past RECONCILE_AFTER_SECONDS and made `unknown`. */
  readonly interrupted: readonly string[];
  /** The authorizations this run expired. */
  readonly expired: readonly string[];
  /** The provider closes this run tried, and their outcomes. */
  readonly closed: ReadonlyArray<{ readonly authorizationId: string; readonly outcome: RevokeOutcome }>;
}

export const EXPIRY_ACTOR = 'system:pix-automatic-expiry';

/**
 * The authorizations' clock-driven work (SPEC 3.2, 4.11 "the payer has 24 hours to approve"; docs/decisions.md
 * "Pix Automatic (issue 27): authorizations"): claims the due rows of the read model (`next_check_at` reached,
 * a partial index) with FOR UPDATE SKIP LOCKED, pushing them past the hold in the same statement, then for
 * each: a `processing` one whose creation recorded no answer within RECONCILE_AFTER_SECONDS (a crash between
 * the reservation and the record) becomes `unknown` (SPEC 3.2: unconfirmed; a refresh reconciles it, never a
 * second creation), a pending one past its approval deadline becomes `expired` (never waiting for the provider), and an
 * expired, non-simulated one is closed at the provider (a revoke, so the payer can no longer approve it):
 * confirmed or refused ends that; unconfirmed is tried again on a later tick (the projection sets the row's
 * next check). Its time is the run's `now` only.
 */
export function authorizationExpiryJob(
  opts: AuthorizationExpiryOptions = {},
): Job<AuthorizationExpiryResult> {
  const batchSize = opts.batchSize ?? 100;
  const holdMs = opts.holdMs ?? 120_000;
  return {
    name: 'pix-automatic-authorization-expiry',
    intervalMs: () => opts.intervalMs ?? 60_000,
    leaseTtlMs: DEFAULT_LEASE_TTL_MS,
    async run(deps, { now, signal }) {
      const held = new Date(now.getTime() + holdMs);
      const { rows } = await sql<{ id: string }>`
        update pix_automatic_authorizations set next_check_at = ${held}
        where id in (
          select id from pix_automatic_authorizations
          where next_check_at is not null and next_check_at <= ${now}
          order by next_check_at limit ${batchSize} for update skip locked)
        returning id`.execute(deps.db);
      const interrupted: string[] = [];
      const expired: string[] = [];
      const closed: Array<{ authorizationId: string; outcome: RevokeOutcome }> = [];
      for (const { id } of rows) {
        signal?.throwIfAborted();
        try {
          if (await markInterrupted(deps, id, now)) interrupted.push(id);
          if (await expireOne(deps, id, now)) expired.push(id);
          const loaded = await loadAuthorization(deps, id);
          if (loaded && !loaded.state.simulated && needsProviderClose(loaded.state)) {
            const ctx = { ...deps, now: () => now };
            const outcome = await revokeAtProvider(ctx, id, 'revoke_expired', { actor: EXPIRY_ACTOR });
            closed.push({ authorizationId: id, outcome });
          }
        } catch (error) {
          // One authorization's failure never stops the others; its row returns after the hold.
          deps.logger.warn({ authorization_id: id, err: error }, 'pix automatic authorization expiry failed');
        }
      }
      return { more: rows.length === batchSize, interrupted, expired, closed };
    },
  };
}

/** A creation still `processing` RECONCILE_AFTER_SECONDS after its reservation: `unknown`, reason `interrupted`. */
async function markInterrupted(deps: JobDeps, id: string, now: Date): Promise<boolean> {
  const loaded = await loadAuthorization(deps, id);
  if (loaded?.state.status !== 'processing') return false;
  const stale = Date.parse(loaded.state.created_at) + deps.config.RECONCILE_AFTER_SECONDS * 1000;
  if (now.getTime() < stale) return false;
  const r = await handleCommand(
    { store: deps.store, registry: deps.events, now: () => now },
    pixAutomaticAuthorization,
    authorizationStream(id),
    {
      kind: 'uncertain',
      reason: 'interrupted',
      providerReference: null,
      diagnostics: NO_DIAGNOSTICS,
    },
    { metadata: { actor: EXPIRY_ACTOR }, retryOnConflict: true },
  );
  return r.events.length > 0;
}

async function expireOne(deps: JobDeps, id: string, now: Date): Promise<boolean> {
  const r = await handleCommand(
    { store: deps.store, registry: deps.events, now: () => now },
    pixAutomaticAuthorization,
    authorizationStream(id),
    { kind: 'expire' },
    { metadata: { actor: EXPIRY_ACTOR }, retryOnConflict: true },
  );
  return r.events.length > 0;
}
