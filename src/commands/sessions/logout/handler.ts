import { sessionDecider, sessionStream } from '../../../aggregates/session.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { handleCommand } from '../../command-handler.ts';
import type { IdentityDeps } from '../../users/identity-deps.ts';

/** SPEC 5.6: logout revokes the session at once (the sessions read model is inline). */
export async function logout(deps: IdentityDeps, sessionId: string, metadata: EventMetadata): Promise<void> {
  await handleCommand(
    deps,
    sessionDecider,
    sessionStream(sessionId),
    { kind: 'end', reason: 'logout' },
    { metadata, retryOnConflict: true },
  );
}
