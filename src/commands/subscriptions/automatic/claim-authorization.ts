import { randomUUID } from 'node:crypto';
import { DomainError } from '../../../aggregates/decider.ts';
import {
  type AuthorizationUseClaimedData,
  authorizationUseStream,
} from '../../../aggregates/subscription-authorization-use.ts';
import {
  type EventMetadata,
  type ExpectedVersion,
  WrongExpectedVersionError,
} from '../../../events/event-store.ts';
import type { AppContext } from '../../context.ts';
import { readClaim } from '../../idempotency.ts';

/**
 * Takes `claim.authorization_id` for the subscription `claim.subscription_id` (SPEC 4.10: one authorization,
 * one subscription). Answers the subscription id to create: this one, or the one an earlier attempt of the
 * same request (same tenant, mode and Idempotency-Key) claimed it for; anyone else's live claim is
 * `409 automatic_authorization_in_use`. A deleted subscription keeps its authorization taken (SPEC 3.3: the
 * authorization is not revoked, and it served that subscription).
 *
 * The claim comes before the Idempotency-Key. Two requests racing under one key but naming different
 * authorizations both claim theirs; the key then goes to one of them, and the other's subscription can
 * never exist. Such an abandoned claim is taken over (a newer claim appended on the stream: the last one
 * holds), so the loser's authorization stays usable.
 */
export async function claimAuthorizationUse(
  ctx: Pick<AppContext, 'store' | 'events'>,
  claim: AuthorizationUseClaimedData,
  metadata: EventMetadata,
): Promise<string> {
  const stream = authorizationUseStream(claim.authorization_id);
  let expected: ExpectedVersion = 'no_stream';
  // Each turn either appends or finds a newer claim; a takeover race ends within a few turns.
  for (let turn = 0; turn < 5; turn++) {
    try {
      const event = ctx.events.encode({ type: 'Subscription.AuthorizationClaimed', data: claim });
      await ctx.store.append(stream, [{ ...event, id: randomUUID(), metadata }], expected);
      return claim.subscription_id;
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
    }
    const last = (await ctx.store.read(stream)).at(-1);
    if (!last) throw new Error(`${stream} exists but holds no claim`);
    const held = ctx.events.decodeStored(last).data as AuthorizationUseClaimedData;
    const sameRequest =
      held.tenant_id === claim.tenant_id &&
      held.livemode === claim.livemode &&
      held.idempotency_key === claim.idempotency_key;
    if (sameRequest) return held.subscription_id;
    if (!(await abandoned(ctx, held))) {
      throw new DomainError(
        'automatic_authorization_in_use',
        'This Pix Automatic authorization already belongs to another subscription.',
        { param: 'authorization_id' },
      );
    }
    expected = last.version;
  }
  throw new Error(`${stream}: the claim kept changing`);
}

/** A claim whose Idempotency-Key went to another subscription: its own subscription is never created. */
async function abandoned(
  ctx: Pick<AppContext, 'store'>,
  held: AuthorizationUseClaimedData,
): Promise<boolean> {
  const key = await readClaim(ctx, held.tenant_id, held.idempotency_key, held.livemode);
  return key !== undefined && key.resource_id !== held.subscription_id;
}
