import {
  type Diagnostics,
  type RefreshCommand,
  type TransactionFacts,
  transaction,
} from '../aggregates/transaction.ts';
import type { EventMetadata } from '../events/event-store.ts';
import type { RemoteCharge } from '../providers/port.ts';
import { diagnosticsFor } from '../providers/safe2pay/diagnostics.ts';
import { transactionStream } from './charges.ts';
import { type CommandDeps, handleCommand } from './command-handler.ts';
import { authorizeLiveRefresh } from './live-payments.ts';
import type { LivePaymentsConfig } from './payment-settings.ts';
import { type AdapterContext, resolveExternalAdapter } from './provider-adapter.ts';

/**
 * Refresh of a charge at the external provider (SPEC 3.1, 4.6; issue 13). The port's `query` reads the charge
 * by its external id; the adapter already refuses an answer whose external id, exact amount or internal
 * reference differ (`uncertain`, reason `mismatch`). Then the remote status becomes one refresh command of the
 * transaction decider, conditioned on the status read before the query (a concurrent refresh that got there
 * first wins: the stale result is dropped):
 *
 *   pending    -> refresh_pending (unknown -> pending with the artifacts the read carries; pending: no-op)
 *   processing -> refresh_processing (boleto status 2, a payment intent; Pix: 502 from the decider)
 *   paid       -> refresh_paid, `paid_with` from the read for a boleto (its Pix or the boleto), pix for Pix
 *   expired    -> refresh_expired (source provider: for a boleto, the bank's write-off)
 *   refunded   -> refresh_refunded
 *   failed     -> not applied: the state table has no refresh into failed; 502, local state kept
 *
 * A query that is refused or uncertain changes nothing and answers `502 provider_refresh_failed` with that
 * query's diagnostics; the stored creation diagnostics are not touched. A Safe2Pay boleto and its Pix are one
 * provider transaction, so one query checks both (SPEC 3.1 "checks both the boleto and its Pix").
 */

export type RefreshOutcome =
  | { readonly kind: 'applied' }
  | { readonly kind: 'failed'; readonly diagnostics: Diagnostics };

export interface RefreshContext extends AdapterContext {
  deps: CommandDeps;
  config: AdapterContext['config'] & LivePaymentsConfig;
}

function command(state: TransactionFacts, remote: RemoteCharge): RefreshCommand | null {
  const observedStatus = state.status;
  const providerReference = remote.providerReference;
  switch (remote.status) {
    case 'pending':
      return {
        kind: 'refresh_pending',
        observedStatus,
        // The read carries the boleto's fields; a Pix read carries none, so the stored ones stay.
        artifacts: {
          ...state.artifacts,
          ...(remote.artifacts ?? {}),
          provider_reference: providerReference,
        },
      };
    case 'processing':
      return { kind: 'refresh_processing', observedStatus, providerReference };
    case 'paid':
      return {
        kind: 'refresh_paid',
        observedStatus,
        providerReference,
        paidWith: remote.paidWith ?? state.reserved.method,
        duplicatePayment: false,
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
 * status 2) and the production controls' (403, 503); answers `failed` when nothing could be applied.
 */
export async function refreshAtProvider(
  ctx: RefreshContext,
  state: TransactionFacts,
  providerReference: string,
  metadata: EventMetadata,
): Promise<RefreshOutcome> {
  const reserved = state.reserved;
  if (reserved.provider_id === null) throw new Error('an external charge without its provider');
  // SPEC 4.6, 5.8: a production refresh needs the production control; the boleto sandbox does not.
  if (reserved.environment === 'production') {
    await authorizeLiveRefresh({ deps: ctx.deps, config: ctx.config }, { providerId: reserved.provider_id });
  }
  let external: Awaited<ReturnType<typeof resolveExternalAdapter>>;
  try {
    external = await resolveExternalAdapter(ctx, reserved.provider_id);
  } catch {
    return { kind: 'failed', diagnostics: diagnosticsFor('credentials_missing', null, null) };
  }
  let outcome: Awaited<ReturnType<typeof external.adapter.query>>;
  try {
    outcome = await external.adapter.query(
      {
        transactionId: reserved.transaction_id,
        method: reserved.method,
        amount: reserved.amount,
        providerReference,
        boletoDueDate: reserved.method === 'boleto' ? state.boletoDueDate : null,
      },
      external.context(),
    );
  } catch {
    return { kind: 'failed', diagnostics: diagnosticsFor('connection', null, null) };
  }
  if (outcome.kind !== 'issued') return { kind: 'failed', diagnostics: outcome.diagnostics };
  const next = command(state, outcome.charge);
  if (next === null) {
    return {
      kind: 'failed',
      diagnostics: diagnosticsFor('status_refused', null, null),
    };
  }
  await handleCommand(ctx.deps, transaction, transactionStream(reserved.transaction_id), next, {
    metadata,
    // The result carries the status it was read against; a re-decision drops it if that moved on.
    retryOnConflict: true,
  });
  return { kind: 'applied' };
}
