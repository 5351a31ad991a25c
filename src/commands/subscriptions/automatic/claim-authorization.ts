import { randomUUID } from 'node:crypto';
import { DomainError } from '../../../aggregates/decider.ts';
import {
  type AuthorizationUseClaimedData,
  authorizationUseStream,
} from '../../../aggregates/subscription-authorization-use.ts';
import { type EventMetadata, WrongExpectedVersionError } from '../../../events/event-store.ts';
import type { AppContext } from '../../context.ts';

/**
 * Takes `claim.authorization_id` for the subscription `claim.subscription_id` (SPEC 4.10: one authorization,
 * one subscription). Answers the subscription id to create: this one, or the one an earlier attempt of the
 * same request (same tenant, mode and Idempotency-Key) claimed it for; anyone else's claim is
 * `409 automatic_authorization_in_use`. A deleted subscription keeps its authorization taken (SPEC 3.3: the
 * authorization is not revoked, and it served that subscription).
 */
export async function claimAuthorizationUse(
  ctx: Pick<AppContext, 'store' | 'events'>,
  claim: AuthorizationUseClaimedData,
  metadata: EventMetadata,
): Promise<string> {
  const stream = authorizationUseStream(claim.authorization_id);
  try {
    const event = ctx.events.encode({ type: 'Subscription.AuthorizationClaimed', data: claim });
    await ctx.store.append(stream, [{ ...event, id: randomUUID(), metadata }], 'no_stream');
    return claim.subscription_id;
  } catch (error) {
    if (!(error instanceof WrongExpectedVersionError)) throw error;
  }
  const [first] = await ctx.store.read(stream);
  if (!first) throw new Error(`${stream} exists but holds no claim`);
  const held = ctx.events.decodeStored(first).data as AuthorizationUseClaimedData;
  const sameRequest =
    held.tenant_id === claim.tenant_id &&
    held.livemode === claim.livemode &&
    held.idempotency_key === claim.idempotency_key;
  if (!sameRequest) {
    throw new DomainError(
      'automatic_authorization_in_use',
      'This Pix Automatic authorization already belongs to another subscription.',
      { param: 'authorization_id' },
    );
  }
  return held.subscription_id;
}
