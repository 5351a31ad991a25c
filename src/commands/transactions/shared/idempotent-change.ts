import { DomainError } from '../../../aggregates/decider.ts';
import { type Diagnostics, type TransactionFacts, transaction } from '../../../aggregates/transaction.ts';
import { type EventMetadata, WrongExpectedVersionError } from '../../../events/event-store.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import { foldStream } from '../../fold-stream.ts';
import {
  claimIdempotencyKey,
  type IdempotencyClaim,
  idempotencyStream,
  isCompleted,
  markCompleted,
  readClaim,
  requestHash,
} from '../../idempotency.ts';
import type { VaultAccess } from '../refund/payout.ts';
import type { AdapterContext, Attempt, Reserve } from './provider-changes.ts';
import { transactionStream } from './stream.ts';

/**
 * Changes of an issued charge that need an `Idempotency-Key` (SPEC 4.8): the integral refund and the due
 * date of an open boleto, sent through the charge's provider adapter (provider-changes.ts).
 * Order: the key is looked up first (a replay answers the stored outcome, even after the charge moved on);
 * a new key is checked against the folded state before it is claimed, so only a request that can succeed
 * holds a key; then the change is reserved on the charge's stream (issue 22: of concurrent requests, with
 * any keys, one reaches the provider, the others are 409 refund_in_progress / change_in_progress), the
 * provider is called and its answer appended.
 *
 * Once the provider confirmed the change it is appended naming the claim (causation) and the claim is
 * marked completed (`Idempotency.Completed`); a replay then answers the stored record with no event and no
 * provider call: re-running it would roll a newer change back (key A to date X, key B to date Y, A again
 * must keep Y; issue 12). A change appended before a crash kept it from being marked is found by its
 * causation and not applied twice.
 *
 * A refused or uncertain answer is appended without the claim's causation and leaves the claim open, so
 * the same key asks again: an uncertain change is `pending` (202), and the next call with any key, or the
 * reconciler (../settle-pending-changes/job.ts), only reads the provider (provider-changes.ts). A
 * refusal answers `502 provider_rejected` with that answer's diagnostics; the charge's state is kept, and
 * asking again reserves and sends again. A request that lost the reservation leaves its key open too: asked
 * again once the winner is recorded, it answers the state then (a refunded charge is 200, nothing sent).
 */

export interface ChangeContext {
  deps: CommandDeps;
  config: AdapterContext['config'];
  /** The personal-data vault, for a refund to the payer's bank account (../refund/payout.ts). */
  vault: VaultAccess;
  /** Where adapters come from (provider-adapter.ts). */
  adapters: AdapterContext['adapters'];
}

export interface ChangeInput {
  /** The idempotency scope: the tenant of the key, or of the charge for the panel. */
  scope: string;
  /** The key's mode, part of the idempotency scope (SPEC 4 common rules, 5.2). */
  livemode?: boolean | undefined;
  key: string;
  /** Route template, part of the request hash. */
  route: string;
  transactionId: string;
  /** The normalized body; hashed with the route, never stored (it may hold a bank account). */
  body: Record<string, unknown>;
}

export type ChangeResult =
  /** Confirmed (or nothing to do): the stored record answers. */
  | { readonly kind: 'applied' }
  /** The provider's answer was uncertain: the change is pending until a later call or the reconciler. */
  | { readonly kind: 'pending' }
  /** The provider refused: 502 provider_rejected with these diagnostics; the charge's state kept. */
  | { readonly kind: 'refused'; readonly diagnostics: Diagnostics };

export interface ChangeOutcome {
  replayed: boolean;
  result: ChangeResult;
}

/** Decides and makes the provider call, reserving the change first with `reserve`. */
export type Prepare = (state: TransactionFacts, reserve: Reserve) => Promise<Attempt>;

async function currentFacts(ctx: ChangeContext, id: string): Promise<TransactionFacts> {
  const state = await foldStream(ctx.deps, transaction, transactionStream(id));
  if (state.status === 'none') throw new DomainError('not_found', 'The transaction does not exist.');
  return state;
}

export function adapterContext(ctx: ChangeContext): AdapterContext {
  return { deps: ctx.deps, config: ctx.config, adapters: ctx.adapters };
}

/**
 * Runs `precheck` on a new key before claiming it, then `prepare` (which reserves and calls the provider)
 * and appends the resulting command: a confirmed one as the claim's effect (then the key is completed), a
 * pending or refused one without it (the key stays open and asking again re-runs `prepare`). A DomainError
 * of `prepare` after the claim (say 409 refund_in_progress) is answered as is, and the key stays open.
 */
export async function idempotentChange(
  ctx: ChangeContext,
  input: ChangeInput,
  metadata: EventMetadata,
  precheck: (state: TransactionFacts) => void,
  prepare: Prepare,
): Promise<ChangeOutcome> {
  const body = { transaction_id: input.transactionId, ...input.body };
  const held = await readClaim(ctx.deps, input.scope, input.key, input.livemode);
  if (held && held.request_hash !== requestHash('POST', input.route, body)) {
    throw new DomainError(
      'idempotency_conflict',
      'This Idempotency-Key was used with another body or endpoint.',
    );
  }
  // The change's events name the claim that caused them, so a claim whose change was appended but not yet
  // marked completed (a crash between the two appends) is still recognised as applied.
  const causation_id = idempotencyStream(input.scope, input.key, input.livemode);
  const applied = async (claim: IdempotencyClaim) => {
    if (await isCompleted(ctx.deps, input.scope, input.key, input.livemode)) return true;
    const recorded = await ctx.deps.store.read(transactionStream(input.transactionId));
    if (!recorded.some((e) => e.metadata.causation_id === causation_id)) return false;
    await markCompleted(ctx.deps, claim, input.key, metadata);
    return true;
  };
  // An applied change is answered as stored: never applied again, never sent to the provider again.
  if (held && (await applied(held))) return { replayed: true, result: { kind: 'applied' } };
  let state = await currentFacts(ctx, input.transactionId);
  let replayed = held !== undefined;
  let claim: IdempotencyClaim | undefined = held;
  if (!held) {
    precheck(state);
    const claimed = await claimIdempotencyKey(
      ctx.deps,
      {
        scope: input.scope,
        livemode: input.livemode,
        key: input.key,
        method: 'POST',
        route: input.route,
        body,
        resourceId: input.transactionId,
        payload: {},
      },
      metadata,
    );
    claim = claimed.claim;
    replayed = !claimed.first;
    if (replayed) {
      if (await applied(claimed.claim)) return { replayed, result: { kind: 'applied' } };
      state = await currentFacts(ctx, input.transactionId);
    }
  }
  const stream = transactionStream(input.transactionId);
  // The reservation names no claim: it is not the change itself, and a replay must not take it for one.
  const reserve: Reserve = async (command) => {
    try {
      const reserved = await handleCommand(ctx.deps, transaction, stream, command, {
        metadata,
        // Re-decided on a concurrent append: the decider then refuses (in progress) or finds nothing to do.
        retryOnConflict: true,
      });
      return reserved.events.length > 0 && reserved.state.status !== 'none' ? reserved.state : null;
    } catch (error) {
      // Lost every try to other changes of the same charge (a burst): one is in progress, nothing was sent.
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      throw command.kind === 'request_refund'
        ? new DomainError('refund_in_progress', 'A refund of this charge is already in progress.', {
            transaction_id: input.transactionId,
          })
        : new DomainError('change_in_progress', 'A change of this due date is already in progress.', {
            transaction_id: input.transactionId,
          });
    }
  };
  const attempt = await prepare(state, reserve);
  if (attempt.kind !== 'confirmed') {
    // Not the claim's effect: the key stays open, so asking again settles (pending) or retries (refused).
    if (attempt.command) {
      await handleCommand(ctx.deps, transaction, stream, attempt.command, {
        metadata,
        retryOnConflict: true,
      });
    }
    return {
      replayed,
      result:
        attempt.kind === 'pending'
          ? { kind: 'pending' }
          : { kind: 'refused', diagnostics: attempt.diagnostics },
    };
  }
  try {
    await handleCommand(ctx.deps, transaction, stream, attempt.command, {
      metadata: { ...metadata, causation_id },
      // The provider confirmed the change; a concurrent append only needs the cell decided again.
      retryOnConflict: true,
    });
  } catch (error) {
    // A replay after the charge moved on (say, refunded after its due date changed) answers the stored record.
    if (!(replayed && error instanceof DomainError && error.code === 'conflict')) throw error;
  }
  if (claim) await markCompleted(ctx.deps, claim, input.key, metadata);
  return { replayed, result: { kind: 'applied' } };
}

/** A change asked of a charge in a state that does not allow it: 409 conflict (SPEC 4.8). */
export function refuseState(state: TransactionFacts, message: string): DomainError {
  return new DomainError('conflict', message, { transaction_id: state.reserved.transaction_id });
}
