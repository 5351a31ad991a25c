import { isDomainError } from '../../../../aggregates/decider.ts';
import { ApiError } from '../../../../aggregates/errors.ts';
import {
  type AuthorizationCommand,
  pixAutomaticAuthorization,
} from '../../../../aggregates/pix-automatic-authorization.ts';
import type { EventMetadata } from '../../../../events/event-store.ts';
import type { RemoteAuthorizationStatus } from '../../../../providers/port.ts';
import { diagnosticsFor } from '../../../../providers/safe2pay/diagnostics.ts';
import { handleCommand } from '../../../command-handler.ts';
import type { AppContext } from '../../../context.ts';
import { bringForwardAfterApproval } from '../../../subscriptions/automatic/bring-forward.ts';
import { authorizeLiveRefresh } from '../../../transactions/shared/live-payments.ts';
import { authorizationStream, type LoadedAuthorization, loadAuthorization } from '../load.ts';
import { adapterOf, authorizationTarget, callPixAutomatic, diagnosticsOf } from '../provider.ts';

export type RefreshContext = Pick<AppContext, 'store' | 'events' | 'db' | 'now' | 'config' | 'providers'>;

const REMOTE: Readonly<Record<RemoteAuthorizationStatus, AuthorizationCommand['kind']>> = {
  pending: 'remote_pending',
  approved: 'remote_approved',
  expired: 'remote_expired',
  cancelled: 'remote_cancelled',
  failed: 'remote_failed',
};

/**
 * `POST /v1/pix-automatic/authorizations/{id}/refresh` (SPEC 3.2, 4.6 by analogy, 4.11; docs/decisions.md "Pix
 * Automatic (issue 27): authorizations"). A simulated authorization is the gateway's own record: the provider
 * (the simulator) is never asked; only the 24-hour approval deadline applies. Otherwise: the production control
 * (SPEC 5.8, as a transaction's refresh), then the provider's query by `provider_reference` (none: 409
 * reconciliation_required), its status applied by the table (a final one never moves: 409
 * provider_status_conflict, state kept; a failed query: 502 provider_refresh_failed with its diagnostics,
 * state kept), then the deadline. An approval found records `approved_at`; subscriptions on the authorization
 * bring their first debit forward from it (issue 27, the lead's wiring).
 */
export async function refreshAuthorization(
  ctx: RefreshContext,
  loaded: LoadedAuthorization,
  metadata: EventMetadata,
): Promise<LoadedAuthorization> {
  const { state } = loaded;
  const { id } = state;
  const decide = (command: AuthorizationCommand) =>
    handleCommand(
      { store: ctx.store, registry: ctx.events, now: () => ctx.now() },
      pixAutomaticAuthorization,
      authorizationStream(id),
      command,
      { metadata, retryOnConflict: true },
    );
  const target = authorizationTarget(state);
  if (target === null && (state.status === 'processing' || state.status === 'unknown')) {
    throw new ApiError(
      'reconciliation_required',
      'The authorization has no external id to query; its creation is unconfirmed.',
    );
  }
  if (!state.simulated && target !== null) {
    if (state.environment === 'production' && state.provider_id !== null) {
      await authorizeLiveRefresh(
        { deps: { store: ctx.store, registry: ctx.events }, config: ctx.config },
        { providerId: state.provider_id },
      );
    }
    const resolved = await adapterOf(ctx, state).catch((error: unknown) => {
      if (isDomainError(error)) return null;
      throw error;
    });
    if (resolved === null) {
      throw new ApiError('provider_refresh_failed', 'The provider cannot be queried; local state kept.', {
        ...diagnosticsFor('credentials_missing', null, null),
      });
    }
    const answer = await callPixAutomatic(resolved, (pix, c) => pix.queryAuthorization(target, c));
    if (answer.kind !== 'issued') {
      throw new ApiError('provider_refresh_failed', 'The provider query failed; local state kept.', {
        ...diagnosticsOf(answer),
      });
    }
    await decide({
      kind: REMOTE[answer.status],
      providerStatus: answer.providerStatus,
    } as AuthorizationCommand);
  }
  // SPEC 3.2: 24 hours without approval; the expiry job closes a non-simulated one at the provider.
  await decide({ kind: 'expire' });
  const after = await loadAuthorization(ctx, id);
  // SPEC 4.11: an approval found by refresh brings the first debit attempt forward to the next minute.
  if (state.status !== 'approved' && after?.state.status === 'approved') {
    await bringForwardAfterApproval(ctx, id, ctx.now(), metadata);
  }
  return after ?? loaded;
}
