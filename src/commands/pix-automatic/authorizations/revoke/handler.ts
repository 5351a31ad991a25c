import { isDomainError } from '../../../../aggregates/decider.ts';
import { ApiError } from '../../../../aggregates/errors.ts';
import {
  type AuthorizationCommand,
  pixAutomaticAuthorization,
} from '../../../../aggregates/pix-automatic-authorization.ts';
import type { EventMetadata } from '../../../../events/event-store.ts';
import { NO_DIAGNOSTICS, type Outcome } from '../../../../providers/port.ts';
import { handleCommand } from '../../../command-handler.ts';
import type { AppContext } from '../../../context.ts';
import { requireNoUnconfirmedDebit } from '../../debits/revoke-guard.ts';
import { authorizationStream, type LoadedAuthorization, loadAuthorization } from '../load.ts';
import { adapterOf, authorizationTarget, callPixAutomatic, diagnosticsOf } from '../provider.ts';

export type RevokeContext = Pick<AppContext, 'store' | 'events' | 'now' | 'config' | 'providers' | 'db'>;

export type RevokeOutcome = 'confirmed' | 'refused' | 'uncertain' | 'nothing_to_do';

/**
 * Reserve -> call -> record for a revoke (SPEC 3.2, 4.11): `command` reserves it (`revoke` for a DELETE,
 * `revoke_expired` for the expiry's close) — the table refuses what may not be revoked and a revoke in flight
 * (502 provider_cancel_unconfirmed: exactly one provider call at a time) — then the provider's answer is
 * recorded: confirmed (`Cancelled`, or `Revoked` for an expired one), refused or uncertain (the authorization
 * unchanged; a later attempt may try again). The reservation is optimistic on the stream, so of two
 * concurrent revokes one reserves and the other is refused.
 */
export async function revokeAtProvider(
  ctx: RevokeContext,
  authorizationId: string,
  command: 'revoke' | 'revoke_expired',
  metadata: EventMetadata,
): Promise<RevokeOutcome> {
  const decide = (c: AuthorizationCommand) =>
    handleCommand(
      { store: ctx.store, registry: ctx.events, now: () => ctx.now() },
      pixAutomaticAuthorization,
      authorizationStream(authorizationId),
      c,
      { metadata, retryOnConflict: true },
    );
  const reserved = await decide({ kind: command });
  if (reserved.events.length === 0) return 'nothing_to_do';
  const state = reserved.state;
  if (state.status === 'none') return 'nothing_to_do';
  const target = authorizationTarget(state);
  const resolved = await adapterOf(ctx, state).catch((error: unknown) => {
    if (isDomainError(error)) return null;
    throw error;
  });
  const answer: Outcome<{ cancelled: true }> =
    resolved && target
      ? await callPixAutomatic(resolved, (pix, c) => pix.revokeAuthorization(target, c))
      : {
          kind: 'refused',
          reason: 'credentials_missing',
          providerReference: null,
          diagnostics: NO_DIAGNOSTICS,
        };
  if (answer.kind === 'issued') {
    await decide({ kind: 'revoke_confirmed' });
    return 'confirmed';
  }
  await decide({
    kind: answer.kind === 'refused' ? 'revoke_refused' : 'revoke_uncertain',
    reason: answer.reason,
    diagnostics: diagnosticsOf(answer),
  });
  return answer.kind === 'refused' ? 'refused' : 'uncertain';
}

/**
 * `DELETE /v1/pix-automatic/authorizations/{id}` (SPEC 3.2, 4.11, 7; docs/decisions.md "Pix Automatic (issue
 * 27): authorizations"): 200 `cancelled` once the provider confirms; a cancelled one 200 unchanged. The
 * provider refuses (a debit's attempt is due): 409 reconciliation_required; unconfirmed: 502
 * provider_cancel_unconfirmed; both leave the authorization as it was. Revoking moves no money: no production
 * control is consulted. A debit of it `processing` or `unknown` stops the revoke before anything is reserved or
 * sent: 409 reconciliation_required (SPEC 3.2 last row).
 */
export async function revokeAuthorization(
  ctx: RevokeContext,
  loaded: LoadedAuthorization,
  metadata: EventMetadata,
): Promise<LoadedAuthorization> {
  await requireNoUnconfirmedDebit(ctx.db, loaded.state.id);
  const outcome = await revokeAtProvider(ctx, loaded.state.id, 'revoke', metadata);
  if (outcome === 'refused') {
    throw new ApiError(
      'reconciliation_required',
      'The provider refused the revocation (a debit may be due); the authorization is unchanged.',
    );
  }
  if (outcome === 'uncertain') {
    throw new ApiError(
      'provider_cancel_unconfirmed',
      'The provider did not confirm the revocation; the authorization is unchanged. Try again later.',
    );
  }
  return (await loadAuthorization(ctx, loaded.state.id)) ?? loaded;
}
