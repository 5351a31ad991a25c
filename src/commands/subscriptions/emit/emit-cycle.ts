import { isDomainError } from '../../../aggregates/decider.ts';
import {
  type CycleOutcome,
  type SubscriptionCommand,
  type SubscriptionMethod,
  type SubscriptionState,
  subscription,
} from '../../../aggregates/subscription.ts';
import {
  type CycleCommand,
  type CycleState,
  cycleStream,
  subscriptionCycle,
} from '../../../aggregates/subscription-cycle.ts';
import { EMISSION_RETRY_MS } from '../../../aggregates/subscription-schedule.ts';
import { transaction } from '../../../aggregates/transaction.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { foldCheckout } from '../../checkouts/record.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import { foldStream } from '../../fold-stream.ts';
import type { IdempotencyClaim } from '../../idempotency.ts';
import { transactionStream } from '../../transactions/shared/stream.ts';
import { foldSubscription, subscriptionStream } from '../record.ts';
import { appendTogether, decideOn, type Known } from './append-together.ts';
import { issueBoletoCycle } from './boleto.ts';
import { issueCardCycle } from './card.ts';
import { type CycleToIssue, cycleIdentity, type EmitContext } from './context.ts';
import { type CycleIssuer, type Issued, issuedFromCharge } from './outcome.ts';
import { issuePixCycle } from './pix.ts';
import { issuePixAutomaticCycle } from './pix-automatic.ts';

/** What one emission did (the scheduler's log and tests read it). */
export type EmitStep =
  | { readonly kind: CycleOutcome | 'in_progress'; readonly cycle: number; readonly dueDate: string }
  | { readonly kind: 'failed'; readonly cycle: number; readonly dueDate: string; readonly reason: string };

const ISSUERS: Readonly<Record<SubscriptionMethod, CycleIssuer>> = {
  boleto: issueBoletoCycle,
  pix: issuePixCycle,
  credit_card: issueCardCycle,
  pix_automatic: issuePixAutomaticCycle,
};

const OUTCOME: Readonly<Record<Exclude<CycleState['status'], 'none' | 'pending'>, CycleOutcome>> = {
  created: 'created',
  attention: 'attention',
  skipped: 'skipped',
};

function commandDeps(ctx: EmitContext): CommandDeps {
  return { store: ctx.store, registry: ctx.events, now: () => ctx.now() };
}

/** What the caller of an emission already knows (each saves a read; a stale one only costs a re-read). */
export interface EmitOptions {
  /** The cycle's key's claim when an earlier attempt (a crash, a second worker) may have made its charge. */
  readonly claim?: IdempotencyClaim | undefined;
  /** The caller has just started the cycle, so its stream cannot exist unless another worker raced it. */
  readonly fresh?: boolean;
  /** The subscription's stream as the caller last folded or appended it. */
  readonly known?: KnownSubscription | undefined;
  /** The cycle's stream as the caller has just reserved it (with CycleStarted, in one append). */
  readonly reserved?: Known<CycleState> | undefined;
}

export interface KnownSubscription {
  readonly state: SubscriptionState;
  readonly version: number;
}

/**
 * Issues the cycle in progress of a subscription (SPEC 4.10, 3.4; docs/decisions.md "Subscriptions (issue
 * 26)"): reserves its stream (`cycle-<subscription>-<due_date>`, no_stream; found there already, it goes on
 * from its state, and a final one only settles the subscription), issues its charge or Pix link by method,
 * records the outcome on the cycle, then settles the subscription. A DomainError before the charge's
 * reservation is the subscription's `last_error`, tried again in 15 minutes; the cycle stays pending. A
 * claimed charge (`opts.claim`) is read, never asked for again. Returns the subscription as it was left.
 */
export async function emitCycle(
  ctx: EmitContext,
  c: CycleToIssue,
  metadata: EventMetadata,
  opts: EmitOptions = {},
): Promise<{ step: EmitStep; subscription: KnownSubscription }> {
  const s = c.subscription.created;
  const deps = commandDeps(ctx);
  const ref = { cycle: c.cycle, dueDate: c.dueDate };
  const stream = cycleStream(s.subscription_id, c.dueDate);
  const onSubscription = (command: SubscriptionCommand) =>
    handleCommand(deps, subscription, subscriptionStream(s.subscription_id), command, {
      metadata,
      retryOnConflict: true,
      ...(opts.known ? { from: opts.known } : {}),
    });
  const reserved =
    opts.reserved ??
    (await handleCommand(
      deps,
      subscriptionCycle,
      stream,
      { kind: 'reserve', identity: cycleIdentity(c) },
      {
        metadata,
        retryOnConflict: true,
        ...(opts.fresh ? { from: { state: subscriptionCycle.initialState, version: 0 } } : {}),
      },
    ));
  let cycle = { state: reserved.state, version: reserved.version };
  if (cycle.state.status === 'pending') {
    let issued: Issued;
    try {
      issued =
        (opts.claim && (await fromClaim(ctx, opts.claim))) ?? (await ISSUERS[s.method](ctx, c, metadata));
    } catch (error) {
      if (!isDomainError(error) || error.code === 'reconciliation_required') throw error;
      const nextAttemptAt = new Date(ctx.now().getTime() + EMISSION_RETRY_MS).toISOString();
      const failed = await onSubscription({
        kind: 'emission_failed',
        ...ref,
        reason: error.code,
        nextAttemptAt,
      });
      return { step: { kind: 'failed', ...ref, reason: error.code }, subscription: failed };
    }
    if (issued.kind === 'in_progress') {
      const now = await foldSubscriptionKnown(ctx, s.subscription_id, opts.known);
      return { step: { kind: 'in_progress', ...ref }, subscription: now };
    }
    const command = cycleCommand(issued, c);
    const together = opts.known && (await recordAndSettle(deps, c, cycle, command, opts.known, metadata));
    if (together) return together;
    const r = await handleCommand(deps, subscriptionCycle, stream, command, {
      metadata,
      retryOnConflict: true,
      from: cycle,
    });
    cycle = { state: r.state, version: r.version };
  }
  if (cycle.state.status === 'none' || cycle.state.status === 'pending') {
    throw new Error(`cycle ${stream} not final after its emission`);
  }
  const outcome = OUTCOME[cycle.state.status];
  const settled = await onSubscription({ kind: 'settle_cycle', ...ref, outcome });
  return { step: { kind: outcome, ...ref }, subscription: settled };
}

/**
 * The cycle's outcome and the subscription's CycleSettled in one append (issue 26 item 8: one commit, not
 * two), each decided on the state its caller holds. Undefined when either decision is a refusal or a no-op,
 * or a stream moved meanwhile (a status change during the emission): nothing was written, and the caller
 * records them one after the other, re-reading as before.
 */
async function recordAndSettle(
  deps: CommandDeps,
  c: CycleToIssue,
  cycle: Known<CycleState>,
  command: CycleCommand,
  known: KnownSubscription,
  metadata: EventMetadata,
): Promise<{ step: EmitStep; subscription: KnownSubscription } | undefined> {
  const s = c.subscription.created;
  const recorded = decideOn(
    deps,
    subscriptionCycle,
    cycleStream(s.subscription_id, c.dueDate),
    command,
    cycle,
  );
  const status = recorded?.after.state.status;
  if (!recorded || status === undefined || status === 'none' || status === 'pending') return undefined;
  const ref = { cycle: c.cycle, dueDate: c.dueDate };
  const outcome = OUTCOME[status];
  const settled = decideOn(
    deps,
    subscription,
    subscriptionStream(s.subscription_id),
    { kind: 'settle_cycle', ...ref, outcome },
    known,
  );
  if (!settled || !(await appendTogether(deps, metadata, [recorded, settled]))) return undefined;
  return { step: { kind: outcome, ...ref }, subscription: settled.after };
}

/** The cycle's record of what its emission produced. */
function cycleCommand(issued: Exclude<Issued, { kind: 'in_progress' }>, c: CycleToIssue): CycleCommand {
  switch (issued.kind) {
    case 'issued':
      return { kind: 'issue', transactionId: issued.transactionId, checkoutId: issued.checkoutId };
    case 'attention':
      return { kind: 'attention', transactionId: issued.transactionId, errorCode: issued.code };
    case 'skipped':
      return { kind: 'skip', identity: cycleIdentity(c), errorCode: issued.code };
  }
}

/**
 * What an earlier attempt's claim already made: its Pix link, or its reserved charge's outcome. Undefined
 * when the link or the charge's reservation is not in the log yet (the checkout is appended after its claim;
 * under EventStoreDB so is a charge's reservation): the issuer's replay under the same key completes it.
 */
async function fromClaim(ctx: EmitContext, claim: IdempotencyClaim): Promise<Issued | undefined> {
  const id = claim.resource_id;
  if (id.startsWith('chk_')) {
    // The checkout is appended after its claim: a crash between the two is completed by the issuer's replay.
    const link = await foldCheckout(ctx, id);
    return link ? { kind: 'issued', transactionId: null, checkoutId: id } : undefined;
  }
  const state = await foldStream(
    { store: ctx.store, registry: ctx.events },
    transaction,
    transactionStream(id),
  );
  if (state.status === 'none') return undefined;
  // Still being made by the attempt that claimed it: not an outcome yet (see ./outcome.ts).
  return state.status === 'processing' ? { kind: 'in_progress' } : issuedFromCharge(id, state.status);
}

/** The subscription as the caller knew it, or as its stream is now. */
async function foldSubscriptionKnown(
  ctx: EmitContext,
  subscriptionId: string,
  known: KnownSubscription | undefined,
): Promise<KnownSubscription> {
  if (known) return known;
  const folded = await foldSubscription(ctx, subscriptionId);
  return folded ? folded : { state: subscription.initialState, version: -1 };
}
