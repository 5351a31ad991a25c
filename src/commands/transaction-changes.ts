import { DomainError } from '../aggregates/decider.ts';
import { type TransactionCommand, type TransactionFacts, transaction } from '../aggregates/transaction.ts';
import type { EventMetadata } from '../events/event-store.ts';
import { type PaymentProvider, providerAdapter } from '../providers/provider.ts';
import { simulatorProvider } from '../providers/simulator.ts';
import { transactionStream } from './charges.ts';
import { type CommandDeps, handleCommand } from './command-handler.ts';
import { foldStream } from './fold-stream.ts';
import {
  claimIdempotencyKey,
  type IdempotencyClaim,
  idempotencyStream,
  isCompleted,
  markCompleted,
  readClaim,
  requestHash,
} from './idempotency.ts';

/**
 * Changes of an issued charge that need an `Idempotency-Key` (SPEC 4.8): the integral refund and the due
 * date of an open boleto. Order: the key is looked up first (a replay answers the stored outcome, even after
 * the charge moved on); a new key is checked against the folded state before it is claimed, so only a
 * request that can succeed holds a key; then the provider is called and its confirmation appended.
 *
 * Once the change is applied the claim is marked completed (`Idempotency.Completed`), and a replay answers
 * the stored record with no event and no provider call: re-running it would roll a newer change back (key A
 * to date X, key B to date Y, A again must keep Y; issue 12). Only a claim left uncompleted (a process that
 * died before appending, or a refused attempt) is run again: a change appended before a crash kept it from
 * being marked is found by its causation (the claim's stream id) and not applied twice; both decider cells are repeat-safe and the
 * provider operations are idempotent by the charge's id (the simulator trivially so).
 */

export interface ChangeContext {
  deps: CommandDeps;
  /** The object provider overrides are keyed by (the application context). */
  adapters: object;
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

export interface ChangeOutcome {
  replayed: boolean;
}

type Prepare = (state: TransactionFacts) => Promise<TransactionCommand>;

async function currentFacts(ctx: ChangeContext, id: string): Promise<TransactionFacts> {
  const state = await foldStream(ctx.deps, transaction, transactionStream(id));
  if (state.status === 'none') throw new DomainError('not_found', 'The transaction does not exist.');
  return state;
}

function adapterFor(ctx: ChangeContext, state: TransactionFacts): PaymentProvider {
  const adapter = providerAdapter(ctx.adapters, state.reserved.simulated ? 'simulator' : 'external', {
    simulator: simulatorProvider,
  });
  if (!adapter) {
    throw new DomainError(
      'provider_not_configured',
      'No adapter for this provider is available in this build.',
    );
  }
  return adapter;
}

/**
 * Runs `precheck` on a new key before claiming it, then `prepare` (which calls the provider) and appends the
 * resulting command. A refusal of `prepare` after the claim is answered as is; the key stays claimed and a
 * replay re-runs it (the charge's state decides again).
 */
async function idempotentChange(
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
  if (held && (await applied(held))) return { replayed: true };
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
      if (await applied(claimed.claim)) return { replayed };
      state = await currentFacts(ctx, input.transactionId);
    }
  }
  try {
    const command = await prepare(state);
    await handleCommand(ctx.deps, transaction, transactionStream(input.transactionId), command, {
      metadata: { ...metadata, causation_id },
      // The provider confirmed the change; a concurrent append only needs the cell decided again.
      retryOnConflict: true,
    });
  } catch (error) {
    // A replay after the charge moved on (say, refunded after its due date changed) answers the stored record.
    if (!(replayed && error instanceof DomainError && error.code === 'conflict')) throw error;
  }
  if (claim) await markCompleted(ctx.deps, claim, input.key, metadata);
  return { replayed };
}

function refuseState(state: TransactionFacts, message: string): DomainError {
  return new DomainError('conflict', message, { transaction_id: state.reserved.transaction_id });
}

/** SPEC 4.8 bank account of the payer, needed only to refund a boleto paid by boleto. */
export type BankAccount = Readonly<Record<string, string>>;

/** `POST /v1/transactions/{id}/refund`: the integral refund of a paid charge (SPEC 3.1, 4.8). */
export async function refundTransaction(
  ctx: ChangeContext,
  input: ChangeInput & { bankAccount: BankAccount | null },
  metadata: EventMetadata,
): Promise<ChangeOutcome> {
  const precheck = (state: TransactionFacts) => {
    if (state.status === 'refunded') return;
    if (state.status !== 'paid') throw refuseState(state, 'Only a paid charge can be refunded.');
    const byBoleto = state.reserved.method === 'boleto' && state.paidWith === 'boleto';
    if (byBoleto && input.bankAccount === null) {
      throw new DomainError(
        'validation_error',
        "A boleto paid by boleto is refunded to the payer's bank account.",
        {
          param: 'bank_account',
        },
      );
    }
    if (!byBoleto && input.bankAccount !== null) {
      throw new DomainError(
        'validation_error',
        'This charge is refunded by Pix; do not send a bank account.',
        {
          param: 'bank_account',
        },
      );
    }
  };
  return idempotentChange(ctx, input, metadata, precheck, async (state) => {
    if (state.status !== 'paid') return { kind: 'refund', refundStatus: 'succeeded' };
    const confirmed = await adapterFor(ctx, state).refundCharge({
      transactionId: state.reserved.transaction_id,
      providerReference: state.artifacts.provider_reference,
      method: state.reserved.method,
      amount: state.reserved.amount,
      paidWith: state.paidWith,
      bankAccount: input.bankAccount,
      now: ctx.deps.now(),
    });
    return { kind: 'refund', refundStatus: confirmed.refundStatus };
  });
}

/** `PATCH /v1/transactions/{id}/boleto`: a new due date for an open boleto (SPEC 4.8). */
export async function changeBoletoDueDate(
  ctx: ChangeContext,
  input: ChangeInput & { dueDate: string },
  metadata: EventMetadata,
): Promise<ChangeOutcome> {
  const dryRun = (state: TransactionFacts) => {
    // The decider's own checks (open boleto, date window), with the current deadline standing in.
    const decision = transaction.decide(
      { kind: 'change_due_date', dueDate: input.dueDate, expiresAt: state.artifacts.expires_at },
      state,
      { now: ctx.deps.now() },
    );
    if (decision instanceof DomainError) throw decision;
  };
  return idempotentChange(ctx, input, metadata, dryRun, async (state) => {
    const options = state.reserved.boleto;
    if (state.status !== 'pending' || options === null || state.boletoDueDate === input.dueDate) {
      return { kind: 'change_due_date', dueDate: input.dueDate, expiresAt: state.artifacts.expires_at };
    }
    dryRun(state);
    const moved = await adapterFor(ctx, state).changeDueDate({
      transactionId: state.reserved.transaction_id,
      providerReference: state.artifacts.provider_reference,
      dueDate: input.dueDate,
      boleto: options,
      now: ctx.deps.now(),
    });
    return { kind: 'change_due_date', dueDate: input.dueDate, expiresAt: moved.expiresAt };
  });
}
