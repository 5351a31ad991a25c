import {
  type RefreshCommand,
  type TransactionFacts,
  type TransactionStatus,
  transaction,
} from '../../../aggregates/transaction.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { type AuthorizationTarget, type RemoteDebit, withCapability } from '../../../providers/port.ts';
import { diagnosticsFor } from '../../../providers/safe2pay/diagnostics.ts';
import { handleCommand } from '../../command-handler.ts';
import { loadAuthorization } from '../../pix-automatic/authorizations/load.ts';
import { type ResolvedAdapter, reservedRecord, resolveAdapter } from '../../provider-adapter.ts';
import { authorizeLiveRefresh } from '../shared/live-payments.ts';
import { guarded } from '../shared/provider-changes.ts';
import { transactionStream } from '../shared/stream.ts';
import type { RefreshContext, RefreshOutcome } from './outcome.ts';

/**
 * The refresh of a Pix Automatic debit (SPEC 3.1, 4.6, 4.11; issue 27 item 3): the transaction's own
 * refresh path (`POST /v1/transactions/{id}/refresh`, the reconciler and the debit poller all come here
 * through refreshAtProvider), reading the debit with the port's `pixAutomatic.queryDebit`, never
 * `charges.query`. A simulated debit is asked too: the simulator answers from the debit's due date (paid
 * from that day in America/Sao_Paulo, at the caller's `now`, a test clock's in test mode).
 *
 * With an external id the debit is read and checked (the answer's reference and amount, when it carries
 * them, must be this transaction's: else `502 provider_refresh_failed`, nothing applied). The remote status
 * becomes one refresh command, conditioned on the status read before the query:
 *   pending -> refresh_pending (an `unknown` debit becomes `pending`: scheduled)
 *   paid    -> refresh_paid, paid with Pix
 *   expired -> refresh_expired, source provider (no funds on the due date; no retry, SPEC 4.11)
 *   failed  -> refresh_failed: `failed` with failure_code `debit_rejected` (BCB REJEITADA) or
 *              `debit_cancelled` (CANCELADA); SPEC 3.1 leaves other provider statuses' mapping open
 * Without an external id (an `unknown` debit whose schedule answer was lost) the provider's debits of the
 * authorization carrying the transaction id are listed (`findDebits`): exactly one of the same amount is
 * adopted (`refresh_reference_found`) and then read by its id like any other; none, several, or a lookup that
 * fails -> `409 reconciliation_required`, nothing stored (never a second schedule).
 */
export async function refreshDebitAtProvider(
  ctx: RefreshContext,
  state: TransactionFacts,
  metadata: EventMetadata,
): Promise<RefreshOutcome> {
  const reserved = state.reserved;
  if (!reserved.simulated && reserved.environment === 'production') {
    if (reserved.provider_id === null) throw new Error('an external debit without its provider');
    await authorizeLiveRefresh({ deps: ctx.deps, config: ctx.config }, { providerId: reserved.provider_id });
  }
  const authorization = await debitAuthorization(ctx, state);
  const providerReference = state.artifacts.provider_reference;
  if (authorization === null) return { kind: 'reconciliation_required' };
  if (providerReference === null && state.status !== 'unknown') return { kind: 'reconciliation_required' };
  let resolved: ResolvedAdapter;
  try {
    resolved = await resolveAdapter(ctx, reservedRecord(reserved));
  } catch {
    if (providerReference === null) return { kind: 'reconciliation_required' };
    return { kind: 'failed', diagnostics: diagnosticsFor('credentials_missing', null, null) };
  }
  if (providerReference !== null) {
    return readAndApply(ctx, resolved, authorization, state, providerReference, metadata);
  }
  const found = await guarded(() =>
    withCapability(resolved.adapter, 'pixAutomatic', (p) =>
      p.findDebits(authorization, reserved.transaction_id, resolved.context()),
    ),
  );
  if (found.kind !== 'issued') return { kind: 'reconciliation_required' };
  const same = found.debits.filter((d) => d.amount === null || d.amount === reserved.amount);
  const only = same[0];
  if (same.length !== 1 || only === undefined) return { kind: 'reconciliation_required' };
  const adopted = await handleCommand(
    ctx.deps,
    transaction,
    transactionStream(reserved.transaction_id),
    {
      kind: 'refresh_reference_found',
      observedStatus: state.status,
      providerReference: only.providerReference,
    },
    { metadata, retryOnConflict: true },
  );
  if (adopted.state.status === 'none') throw new Error('a transaction stream without its reservation');
  return readAndApply(ctx, resolved, authorization, adopted.state, only.providerReference, metadata);
}

/** The authorization the debit was scheduled under, as the port names it; null when it cannot be named. */
async function debitAuthorization(
  ctx: RefreshContext,
  state: TransactionFacts,
): Promise<AuthorizationTarget | null> {
  const id = state.reserved.pix_automatic_authorization_id;
  if (id === undefined) return null;
  const loaded = await loadAuthorization({ store: ctx.deps.store, events: ctx.deps.registry }, id);
  const reference = loaded?.state.provider_reference ?? null;
  return reference === null ? null : { authorizationId: id, providerReference: reference };
}

async function readAndApply(
  ctx: RefreshContext,
  resolved: ResolvedAdapter,
  authorization: AuthorizationTarget,
  state: TransactionFacts,
  providerReference: string,
  metadata: EventMetadata,
): Promise<RefreshOutcome> {
  const reserved = state.reserved;
  const dueDate = reserved.scheduled_due_date;
  if (dueDate === undefined) throw new Error('a debit without its scheduled due date');
  const read = await guarded(() =>
    withCapability(resolved.adapter, 'pixAutomatic', (p) =>
      p.queryDebit(
        {
          transactionId: reserved.transaction_id,
          authorization,
          providerReference,
          amount: reserved.amount,
          dueDate,
        },
        resolved.context(),
        ctx.deps.now(),
      ),
    ),
  );
  if (read.kind !== 'issued') return { kind: 'failed', diagnostics: read.diagnostics };
  const debit = read.debit;
  // SPEC 4.6: an answer about another debit (external id, reference or amount) is a divergence.
  if (
    debit.providerReference !== providerReference ||
    (debit.reference !== null && debit.reference !== reserved.transaction_id) ||
    (debit.amount !== null && debit.amount !== reserved.amount)
  ) {
    return { kind: 'failed', diagnostics: diagnosticsFor('mismatch', null, null) };
  }
  await handleCommand(
    ctx.deps,
    transaction,
    transactionStream(reserved.transaction_id),
    command(state, debit),
    {
      metadata,
      // The result carries the status it was read against; a re-decision drops it if that moved on.
      retryOnConflict: true,
    },
  );
  return { kind: 'applied' };
}

function command(state: TransactionFacts, debit: RemoteDebit): RefreshCommand {
  const observedStatus: TransactionStatus = state.status;
  const providerReference = debit.providerReference;
  switch (debit.status) {
    case 'pending':
      return {
        kind: 'refresh_pending',
        observedStatus,
        artifacts: { ...state.artifacts, provider_reference: providerReference },
      };
    case 'paid':
      return {
        kind: 'refresh_paid',
        observedStatus,
        providerReference,
        paidWith: 'pix',
        duplicatePayment: false,
      };
    case 'expired':
      return { kind: 'refresh_expired', observedStatus, source: 'provider', providerReference };
    case 'failed':
      return {
        kind: 'refresh_failed',
        observedStatus,
        providerReference,
        failureCode: debit.cancelled ? 'debit_cancelled' : 'debit_rejected',
      };
  }
}
