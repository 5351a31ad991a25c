import { isDomainError } from '../../../aggregates/decider.ts';
import {
  chargeKindOf,
  type Diagnostics,
  policyOf,
  type RefreshCommand,
  type TransactionArtifacts,
  type TransactionFacts,
  transaction,
} from '../../../aggregates/transaction.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import type { RemoteCharge } from '../../../providers/port.ts';
import { diagnosticsFor } from '../../../providers/safe2pay/diagnostics.ts';
import { handleCommand } from '../../command-handler.ts';
import { type ResolvedExternal, resolveExternalAdapter } from '../../provider-adapter.ts';
import { authorizeLiveRefresh } from '../shared/live-payments.ts';
import { dueDateChangeRead } from '../shared/provider-changes.ts';
import { transactionStream } from '../shared/stream.ts';
import { refreshDebitAtProvider } from './debit.ts';
import { settleDuplicateRefund } from './duplicate-refund.ts';
import type { RefreshContext, RefreshOutcome } from './outcome.ts';

/**
 * Refresh of a charge at the external provider (SPEC 3.1, 4.6; issue 13 items 4 and 7), shared by
 * `POST /v1/transactions/{id}/refresh` and the reconciler (as `system:reconciler`).
 *
 * With an external id, the port's `query` reads the charge; the adapter already refuses an answer whose
 * external id, exact amount or internal reference differ, or that says paid with less than the amount
 * (`uncertain`, reason `mismatch`; issue 22 item 2, safe2pay/amount-paid.ts), so no command is built from
 * it. On a sandbox provider the read carries no boleto Pix (SPEC 1: none is payable). The remote status
 * becomes one refresh command of the transaction decider, conditioned on the status read before the query
 * (a concurrent refresh that got there first wins: the stale result is dropped, never overwriting a newer
 * confirmation):
 *
 *   pending    -> refresh_pending (unknown/processing -> pending with the artifacts the read carries); on a
 *                 pending boleto without its Pix, refresh_boleto_pix when the read carries it (SPEC 4.2:
 *                 slow Pix filled by a later read, nothing emitted again); a Pix past its deadline ->
 *                 refresh_expired, source deadline (SPEC 3.1 "Other rules": expiry by deadline applies to Pix)
 *   processing -> refresh_processing (boleto status 2, a payment intent; Pix: 502 from the decider)
 *   paid       -> refresh_paid, `paid_with` from the read for a boleto (its Pix or the boleto), pix for Pix;
 *                 a boleto read paid by both is `paid_with: boleto` + `duplicate_payment_at`, and its Pix is
 *                 refunded automatically (duplicate-refund.ts)
 *   expired    -> refresh_expired (source provider: for a boleto, the bank's write-off)
 *   refunded   -> refresh_refunded
 *   failed     -> not applied: the state table has no refresh into failed; 502, local state kept
 *
 * A Safe2Pay boleto and its Pix are one provider transaction (wire doc 2.6, 2.10: the read's PaymentObject
 * carries `KeyPix` beside the line), so one query checks both; when that query fails, nothing could be
 * applied: `502 provider_refresh_failed` with that query's diagnostics, stored state and creation
 * diagnostics untouched.
 *
 * Without an external id (an `unknown` charge whose creation answer was lost), the port's `queryByReference`
 * lists the provider's charges carrying the transaction id: exactly one of the same amount -> that id is read
 * by `query` (external id, exact amount and reference checked, SPEC 4.6) and only a read that agrees stores
 * it (`refresh_reference_found`) and applies its status, so a list that lies about the id never pins a wrong
 * one; none -> the charge stays `unknown` (SPEC 3.1: an absent charge is no confirmed refusal, so never
 * `failed`); several, an uncertain or refused lookup, or a read of the id found that fails or disagrees ->
 * `409 reconciliation_required`, nothing stored; a charge with the reference but another amount diverges ->
 * 502. The reconciler tries again on its next tick.
 */

export type { RefreshContext, RefreshOutcome } from './outcome.ts';

/** A Pix read carries no deadline: the reservation's `expires_in` from `reserved_at` (never later than the provider's). */
function withDeadline(state: TransactionFacts, read: TransactionArtifacts): TransactionArtifacts {
  const r = state.reserved;
  if (!policyOf(r.method).expiresIn || read.expires_at !== null || r.expires_in === null) return read;
  const deadline = new Date(Date.parse(r.reserved_at) + r.expires_in * 1000).toISOString();
  return { ...read, expires_at: deadline };
}

function command(state: TransactionFacts, remote: RemoteCharge, now: Date): RefreshCommand | null {
  const observedStatus = state.status;
  const providerReference = remote.providerReference;
  switch (remote.status) {
    case 'pending': {
      // SPEC 3.1 "Other rules": expiry by deadline applies to Pix, also when the provider still reads it open.
      const deadline = state.artifacts.expires_at;
      if (
        policyOf(state.reserved.method).deadlineExpires &&
        deadline !== null &&
        now.getTime() >= Date.parse(deadline)
      ) {
        return { kind: 'refresh_expired', observedStatus, source: 'deadline', providerReference };
      }
      const read = remote.artifacts;
      const pix = read?.boleto_pix_copy_paste ?? null;
      const pixEnds = read?.boleto_pix_expires_at ?? null;
      if (
        state.status === 'pending' &&
        policyOf(state.reserved.method).boletoPix &&
        pix !== null &&
        pixEnds !== null
      ) {
        return {
          kind: 'refresh_boleto_pix',
          observedStatus,
          providerReference,
          boletoPixCopyPaste: pix,
          boletoPixExpiresAt: pixEnds,
        };
      }
      return {
        kind: 'refresh_pending',
        observedStatus,
        // The read's artifacts confirm an `unknown` charge; without them the stored ones stay.
        artifacts: {
          ...state.artifacts,
          ...(read === null ? {} : withDeadline(state, read)),
          provider_reference: providerReference,
        },
      };
    }
    case 'processing':
      return { kind: 'refresh_processing', observedStatus, providerReference };
    case 'paid':
      // A boleto recorded paid once and now read paid by both: the second payment came later (SPEC 2.2).
      if (state.status === 'paid' && remote.duplicatePayment && state.duplicatePaymentAt === null) {
        return { kind: 'refresh_duplicate_payment', observedStatus, providerReference };
      }
      return {
        kind: 'refresh_paid',
        observedStatus,
        providerReference,
        paidWith: remote.paidWith ?? state.reserved.method,
        duplicatePayment: remote.duplicatePayment,
      };
    case 'expired':
      return { kind: 'refresh_expired', observedStatus, source: 'provider', providerReference };
    case 'refunded':
      return { kind: 'refresh_refunded', observedStatus, providerReference };
    case 'failed':
      return null;
  }
}

/**
 * Queries the provider and applies what it reports. Throws the decider's DomainErrors (409
 * provider_status_conflict for a regression of a final state, 502 provider_refresh_failed for a Pix in
 * status 2) and the production controls' (403, 503).
 */
export async function refreshAtProvider(
  ctx: RefreshContext,
  state: TransactionFacts,
  metadata: EventMetadata,
): Promise<RefreshOutcome> {
  const reserved = state.reserved;
  // A Pix Automatic debit is read as a debit (SPEC 4.11), also when simulated: ./debit.ts.
  if (chargeKindOf(reserved) === 'pix_automatic_debit') return refreshDebitAtProvider(ctx, state, metadata);
  if (reserved.provider_id === null) throw new Error('an external charge without its provider');
  // SPEC 4.6, 5.8: a production refresh needs the production control; the boleto sandbox does not.
  if (reserved.environment === 'production') {
    await authorizeLiveRefresh({ deps: ctx.deps, config: ctx.config }, { providerId: reserved.provider_id });
  }
  const providerReference = state.artifacts.provider_reference;
  // SPEC 3.1: only an `unknown` charge may be looked up by reference (a `processing` one is still being
  // issued; the reconciler first marks it `unknown` once its creation timed out).
  if (providerReference === null && state.status !== 'unknown') return { kind: 'reconciliation_required' };
  let external: ResolvedExternal;
  try {
    // Issue 28 item 3: a charge issued through a marketplace subaccount is read with that subaccount's token.
    external = await resolveExternalAdapter(ctx, reserved.provider_id, {
      subaccountId: reserved.subaccount_id,
    });
  } catch (error) {
    // SPEC 2.8, 7: its token gone (or no subaccount on a marketplace record): 422, nothing sent.
    if (isDomainError(error) && error.code.startsWith('subaccount_')) throw error;
    if (providerReference === null) return { kind: 'reconciliation_required' };
    return { kind: 'failed', diagnostics: diagnosticsFor('credentials_missing', null, null) };
  }
  if (providerReference !== null) return readAndApply(ctx, external, state, providerReference, metadata);

  const found = await lookUpByReference(external, state);
  if (found.kind !== 'found') return found;
  // The list's id is trusted only once a read of it agrees on id, amount and reference (SPEC 4.6).
  const read = await readRemote(external, state, found.id);
  if (read.kind !== 'read') return { kind: 'reconciliation_required' };
  const adopted = await handleCommand(
    ctx.deps,
    transaction,
    transactionStream(reserved.transaction_id),
    { kind: 'refresh_reference_found', observedStatus: state.status, providerReference: found.id },
    { metadata, retryOnConflict: true },
  );
  if (adopted.state.status === 'none') throw new Error('a transaction stream without its reservation');
  return apply(ctx, external, adopted.state, read.charge, metadata);
}

type Lookup =
  | { readonly kind: 'found'; readonly id: string }
  | { readonly kind: 'reconciliation_required' }
  | { readonly kind: 'failed'; readonly diagnostics: Diagnostics };

/** SPEC 3.1 `unknown` without `provider_reference`: the provider's charges carrying this transaction id. */
async function lookUpByReference(external: ResolvedExternal, state: TransactionFacts): Promise<Lookup> {
  const reserved = state.reserved;
  let outcome: Awaited<ReturnType<ResolvedExternal['adapter']['charges']['queryByReference']>>;
  try {
    outcome = await external.adapter.charges.queryByReference(reserved.transaction_id, external.context());
  } catch {
    return { kind: 'reconciliation_required' };
  }
  if (outcome.kind !== 'issued') return { kind: 'reconciliation_required' };
  const same = outcome.charges.filter((c) => c.amount === reserved.amount);
  const only = same[0];
  if (same.length === 1 && only) return { kind: 'found', id: only.providerReference };
  if (same.length === 0 && outcome.charges.length > 0) {
    // SPEC 4.6: the reference is ours but the amount is not exactly the charge's: diverging, nothing stored.
    return { kind: 'failed', diagnostics: diagnosticsFor('mismatch', null, null) };
  }
  // None (the creation may never have reached the provider) or several: a person decides (SPEC 3.1).
  return { kind: 'reconciliation_required' };
}

type Read =
  | { readonly kind: 'read'; readonly charge: RemoteCharge }
  | { readonly kind: 'failed'; readonly diagnostics: Diagnostics; readonly mismatch: boolean };

/**
 * One `query` of the external id; the adapter refuses an answer about another charge (SPEC 4.6), and for a
 * boleto one with another due date than `dueDate` (the stored one unless said otherwise).
 */
async function readRemote(
  external: ResolvedExternal,
  state: TransactionFacts,
  providerReference: string,
  dueDate: string | null = state.boletoDueDate,
): Promise<Read> {
  const reserved = state.reserved;
  try {
    const outcome = await external.adapter.charges.query(
      {
        transactionId: reserved.transaction_id,
        method: reserved.method,
        amount: reserved.amount,
        providerReference,
        boletoDueDate: policyOf(reserved.method).dueDate ? dueDate : null,
      },
      external.context(),
    );
    return outcome.kind === 'issued'
      ? { kind: 'read', charge: outcome.charge }
      : { kind: 'failed', diagnostics: outcome.diagnostics, mismatch: outcome.reason === 'mismatch' };
  } catch {
    return { kind: 'failed', diagnostics: diagnosticsFor('connection', null, null), mismatch: false };
  }
}

async function readAndApply(
  ctx: RefreshContext,
  external: ResolvedExternal,
  state: TransactionFacts,
  providerReference: string,
  metadata: EventMetadata,
): Promise<RefreshOutcome> {
  const read = await readRemote(external, state, providerReference);
  if (read.kind === 'read') return apply(ctx, external, state, read.charge, metadata);
  if (!read.mismatch) return { kind: 'failed', diagnostics: read.diagnostics };
  const changed = await settlePendingDueDate(ctx, external, state, providerReference, metadata);
  if (changed === null) return { kind: 'failed', diagnostics: read.diagnostics };
  return apply(ctx, external, changed.state, changed.charge, metadata);
}

/**
 * Issue 13 item 7 with 4.8: a boleto whose due-date change is pending (its answer was lost) and that the
 * provider did apply reads with the new date, which the first read refuses as a mismatch. Read again
 * expecting the pending date: when it agrees, the change is recorded as applied (the settler's own
 * `change_due_date`, ../shared/provider-changes.ts) and the refresh goes on from there. Anything else (a
 * third date, another amount, a failed read, a change the decider no longer takes, such as a date now in
 * the past) answers null: the first read's failure stands, as before. The second read happens only for a
 * mismatch with a change pending, so every other refresh still costs one query.
 */
async function settlePendingDueDate(
  ctx: RefreshContext,
  external: ResolvedExternal,
  state: TransactionFacts,
  providerReference: string,
  metadata: EventMetadata,
): Promise<{ state: TransactionFacts; charge: RemoteCharge } | null> {
  const pending = state.pendingDueDate;
  if (pending === null || state.status !== 'pending') return null;
  const read = await readRemote(external, state, providerReference, pending);
  if (read.kind !== 'read') return null;
  try {
    const changed = await handleCommand(
      ctx.deps,
      transaction,
      transactionStream(state.reserved.transaction_id),
      dueDateChangeRead(state, pending, read.charge),
      // A settler that got there first leaves the same date: re-decided, a no-op.
      { metadata, retryOnConflict: true },
    );
    if (changed.state.status === 'none') return null;
    return { state: changed.state, charge: read.charge };
  } catch (error) {
    if (isDomainError(error)) return null;
    throw error;
  }
}

/** Applies what a read reports; then what the same read owes (the double payment's Pix refund). */
async function apply(
  ctx: RefreshContext,
  external: ResolvedExternal,
  state: TransactionFacts,
  remote: RemoteCharge,
  metadata: EventMetadata,
): Promise<RefreshOutcome> {
  const next = command(state, remote, ctx.deps.now());
  if (next === null) return { kind: 'failed', diagnostics: diagnosticsFor('status_refused', null, null) };
  const applied = await handleCommand(
    ctx.deps,
    transaction,
    transactionStream(state.reserved.transaction_id),
    next,
    {
      metadata,
      // The result carries the status it was read against; a re-decision drops it if that moved on.
      retryOnConflict: true,
    },
  );
  if (applied.state.status !== 'none') {
    await settleDuplicateRefund(
      { deps: ctx.deps, external, retryAfterMs: ctx.config.PROVIDER_TIMEOUT_MS },
      applied.state,
      remote,
      metadata,
    );
  }
  return { kind: 'applied' };
}
