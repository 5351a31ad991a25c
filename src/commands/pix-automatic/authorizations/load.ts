import { ApiError } from '../../../aggregates/errors.ts';
import {
  type AuthorizationState,
  pixAutomaticAuthorization,
} from '../../../aggregates/pix-automatic-authorization.ts';
import type { AppContext } from '../../context.ts';
import { type FoldedStream, foldExisting } from '../../fold-stream.ts';
import { keyReads, requireOwnTenant } from '../../tenancy.ts';

/** Pix Automatic authorizations (SPEC 2.6, 3.2): their streams and folds. */

export const authorizationStream = (authorizationId: string) =>
  `pix-automatic-authorization-${authorizationId}`;

export const AUTHORIZATION_ID = /^pxa_[a-z0-9]{1,60}$/;

export type LoadedAuthorization = FoldedStream<AuthorizationState>;

/**
 * An authorization folded from its stream (always consistent, unlike the read model); null when it does not
 * exist. Ids not `pxa_…` are never read. Callers check tenant and mode (SPEC 4.10 "other-mode ids give 404").
 */
export async function loadAuthorization(
  ctx: Pick<AppContext, 'store' | 'events'>,
  authorizationId: string,
): Promise<LoadedAuthorization | null> {
  if (!AUTHORIZATION_ID.test(authorizationId)) return null;
  const folded = await foldExisting(
    ctx.store,
    (r) => ctx.events.decodeStored(r),
    pixAutomaticAuthorization,
    authorizationStream(authorizationId),
  );
  return folded ?? null;
}

/**
 * SPEC 4.10, 4.11: an authorization the key may read: of its own tenant or a descendant's, in the key's mode.
 * Anything else (missing, another tree, the other mode) is `404 not_found`, so ids are never confirmed.
 */
export async function readableAuthorization(
  ctx: Pick<AppContext, 'store' | 'events'>,
  principal: { tenantId: string; livemode: boolean },
  authorizationId: string,
): Promise<LoadedAuthorization> {
  const loaded = await loadAuthorization(ctx, authorizationId);
  if (!loaded || !(await keyReads({ store: ctx.store, registry: ctx.events }, principal, loaded.state))) {
    throw new ApiError('not_found', 'The authorization does not exist.');
  }
  return loaded;
}

/**
 * SPEC 4.10 "reads see the whole tree, writes only the own tenant": an authorization the key may change; a
 * descendant's is `403 forbidden` (one it cannot read was already 404).
 */
export async function ownAuthorization(
  ctx: Pick<AppContext, 'store' | 'events'>,
  principal: { tenantId: string; livemode: boolean },
  authorizationId: string,
): Promise<LoadedAuthorization> {
  const loaded = await readableAuthorization(ctx, principal, authorizationId);
  requireOwnTenant(
    principal.tenantId,
    loaded.state.tenant_id,
    "A descendant tenant's authorization is changed with that tenant's key.",
  );
  return loaded;
}
