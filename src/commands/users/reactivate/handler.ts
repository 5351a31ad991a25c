import { userDecider, userStream } from '../../../aggregates/user.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { handleCommand } from '../../command-handler.ts';
import type { IdentityDeps } from '../identity-deps.ts';

export async function reactivateUser(deps: IdentityDeps, userId: string, metadata: EventMetadata) {
  await handleCommand(
    deps,
    userDecider,
    userStream(userId),
    { kind: 'reactivate' },
    { metadata, retryOnConflict: true },
  );
}
