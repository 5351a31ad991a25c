import { DomainError } from '../../../aggregates/decider.ts';
import { userDecider, userStream } from '../../../aggregates/user.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { handleCommand } from '../../command-handler.ts';
import type { IdentityDeps } from '../identity-deps.ts';

/** SPEC 7 `cannot_suspend_self`: a user acting on their own account cannot suspend it. */
export async function suspendUser(deps: IdentityDeps, userId: string, metadata: EventMetadata) {
  if (metadata.actor === `user:${userId}`) {
    throw new DomainError('cannot_suspend_self', 'You cannot suspend your own user.');
  }
  await handleCommand(
    deps,
    userDecider,
    userStream(userId),
    { kind: 'suspend' },
    { metadata, retryOnConflict: true },
  );
}
