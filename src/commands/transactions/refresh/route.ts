import { ApiError } from '../../../aggregates/errors.ts';
import { policyFor, transaction } from '../../../aggregates/transaction.ts';
import { refreshTransaction } from '../../../contract/operations/transactions.ts';
import { bind } from '../../bind.ts';
import type { AppContext } from '../../context.ts';
import { foldStream } from '../../fold-stream.ts';
import { refreshPayout } from '../refund/payout.ts';
import { transactionRouteHelpers } from '../shared/route-helpers.ts';
import { transactionStream } from '../shared/stream.ts';
import { type RefreshOutcome, refreshAtProvider } from './handler.ts';
import { SingleFlight } from './single-flight.ts';

// Per gateway (its context): the refresh of an external charge in flight, by transaction id.
const inFlight = new WeakMap<AppContext, SingleFlight<string, RefreshOutcome>>();
function flightsOf(ctx: AppContext): SingleFlight<string, RefreshOutcome> {
  let flights = inFlight.get(ctx);
  if (!flights) {
    flights = new SingleFlight();
    inFlight.set(ctx, flights);
  }
  return flights;
}

/**
 * `POST /v1/transactions/{id}/refresh` (SPEC 3.1, 4.6; docs/decisions.md "Charges"): on the simulator, a Pix
 * past `expires_at` becomes `expired` (`refresh_expired` with source `deadline`, conditioned on the status
 * read); anything else is answered unchanged. A charge of the external provider is queried through the port
 * (./handler.ts); a failed or diverging query is 502 provider_refresh_failed with `error.transaction_id` and
 * its diagnostics, state kept. Never creates a charge.
 *
 * `transactions:read` (the operation's access) plus the method's write scope, checked once the transaction is loaded;
 * developer keys are refused (SPEC 5.4); another tree or mode is 404; a refresh writes, so a descendant's
 * charge is 403 forbidden (SPEC 5.5).
 *
 * Concurrent refreshes of one external charge are coalesced (issue 23 item 2.11): each request passes its
 * own checks (key, scopes, tenant tree, mode) first, then joins the refresh already in flight for that
 * transaction in this process, if any, and answers from its outcome (its own 200 view read afterwards, or
 * the same 409/502): one provider query instead of one per request. The events carry the metadata of the
 * request that started the flight. Across processes each one queries once (docs/decisions.md "Reconciler
 * lease and coalesced refreshes"); a refresh after the flight settled queries again.
 */
export const refreshRoutes = [
  bind(refreshTransaction, async (call, ctx) => {
    const { deps, decide, currentView, requireMethodScope, ownTransaction } = transactionRouteHelpers(ctx);
    // A refund paid out to the payer's account is read at its transfer too (../refund/payout.ts).
    const payoutContext = () => ({
      deps: deps(),
      config: ctx.config,
      adapters: ctx,
      vault: { db: ctx.db, config: ctx.config },
    });
    // SPEC 5.5: a refresh persists state, so a descendant's charge is 403 like refund.
    const { row } = await ownTransaction(call);
    requireMethodScope(call, row);
    const noExternalId = () =>
      new ApiError(
        'reconciliation_required',
        'The charge has no external id to query; reconcile it before refreshing.',
        { transaction_id: row.id },
      );
    // A Pix Automatic debit is asked at its provider (the simulator included: it answers from the due date).
    if (!row.simulated || row.pix_automatic_authorization_id !== null) {
      // Checked above for this request; from here on it may share the flight of another request.
      const outcome = await flightsOf(ctx).run(row.id, async () => {
        const state = await foldStream(deps(), transaction, transactionStream(row.id));
        if (state.status === 'none') return { kind: 'reconciliation_required' };
        // SPEC 3.1, 4.6: by external id, or for `unknown` without it by the provider's query by reference.
        const refreshed = await refreshAtProvider(
          { deps: deps(), config: ctx.config, adapters: ctx },
          state,
          call.metadata(),
        );
        // A refund paid out to the payer's account is read at its transfer too, once per flight.
        await refreshPayout(payoutContext(), row.id, call.metadata());
        return refreshed;
      });
      if (outcome.kind === 'reconciliation_required') throw noExternalId();
      if (outcome.kind === 'failed') {
        // SPEC 4.6, 7: this query's diagnostics, direct in `error`; stored state and diagnostics kept.
        throw new ApiError(
          'provider_refresh_failed',
          'The provider query failed or diverged; local state kept.',
          { transaction_id: row.id, ...outcome.diagnostics },
        );
      }
      return { data: await currentView(row.id) };
    }
    if (row.status === 'unknown' && row.provider_reference === null) throw noExternalId();
    const open = row.status === 'pending' || row.status === 'unknown';
    const deadline = row.expires_at === null ? null : new Date(row.expires_at).getTime();
    const expires = policyFor(row.method)?.deadlineExpires === true;
    if (open && expires && deadline !== null && ctx.now().getTime() > deadline) {
      await decide(call, row, {
        kind: 'refresh_expired',
        source: 'deadline',
        providerReference: row.provider_reference,
        observedStatus: row.status,
      });
    }
    await refreshPayout(payoutContext(), row.id, call.metadata());
    return { data: await currentView(row.id) };
  }),
];
