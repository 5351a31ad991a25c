import type { Operation } from '../contract/operation.ts';
import type { EventMetadata, EventStore } from '../events/event-store.ts';
import { type ClaimInput, type ClaimResult, claimIdempotencyKey } from './idempotency.ts';
import type { SessionPrincipal } from './principal.ts';

/**
 * A panel creation's Idempotency-Key claim (SPEC 4 common rules): scoped to the signed-in user (panel keys
 * are the user's, not a tenant's, and mode-less), for the operation's method and route. The key is read by
 * the caller before it validates, so a request without one is `400 idempotency_key_required` first.
 */
export function claimPanelCreation(
  deps: { store: EventStore },
  operation: Pick<Operation, 'method' | 'path'>,
  requester: { principal: SessionPrincipal; key: string },
  creation: Pick<ClaimInput, 'body' | 'resourceId' | 'payload'>,
  metadata: EventMetadata,
): Promise<ClaimResult> {
  return claimIdempotencyKey(
    deps,
    {
      scope: requester.principal.userId,
      key: requester.key,
      method: operation.method,
      route: operation.path,
      ...creation,
    },
    metadata,
  );
}
