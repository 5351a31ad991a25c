import type { TransactionRequestSnapshot } from '../../../aggregates/transaction.ts';
import type { EventStore } from '../../../events/event-store.ts';
import {
  type ClaimInput,
  heldClaimOr,
  type IdempotencyClaim,
  type JsonValue,
  knownClaim,
} from '../../idempotency.ts';

/**
 * A new charge's Idempotency-Key (SPEC 5.6) as charges and Pix Automatic debits claim it: scoped to the key's
 * tenant and mode, so one key may serve each mode once.
 */
export interface ChargeKey {
  readonly tenantId: string;
  readonly livemode: boolean;
  readonly idempotencyKey: string;
}

/** The claim of a new charge at `route`, whose transaction will be `resourceId`; `hash` is computed once. */
export function chargeClaimInput(
  key: ChargeKey,
  route: string,
  snapshot: TransactionRequestSnapshot,
  hash: string,
  resourceId: string,
  payload: Record<string, JsonValue>,
): ClaimInput {
  return {
    scope: key.tenantId,
    livemode: key.livemode,
    key: key.idempotencyKey,
    method: 'POST',
    route,
    body: snapshot,
    requestHash: hash,
    resourceId,
    payload,
  };
}

/** The key's claim this process already knows, if any (never reads). */
export function knownChargeClaim(deps: { store: EventStore }, key: ChargeKey): IdempotencyClaim | undefined {
  return knownClaim(deps, key.tenantId, key.idempotencyKey, key.livemode);
}

/**
 * The key's stored claim when `error` (a failed validation, a key taken meanwhile) may be a replay's: a replay
 * is answered as stored, never judged by today's checks. With no claim, `error` is thrown.
 */
export function heldChargeClaim(
  error: unknown,
  deps: { store: EventStore },
  key: ChargeKey,
): Promise<IdempotencyClaim> {
  return heldClaimOr(error, deps, key.tenantId, key.idempotencyKey, key.livemode);
}
