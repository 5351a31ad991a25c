import { apiKey } from '../../../aggregates/api-key.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import { type ApiKeyRecord, apiKeyStream, existingApiKey } from '../api-key-record.ts';

/** Revokes a key; the next request with it is `401 unauthorized`. Revoking a revoked key appends nothing. */
export async function revokeApiKey(
  deps: CommandDeps,
  keyId: string,
  metadata: EventMetadata,
): Promise<ApiKeyRecord> {
  const r = await handleCommand(
    deps,
    apiKey,
    apiKeyStream(keyId),
    { kind: 'revoke' },
    {
      metadata,
      retryOnConflict: true,
    },
  );
  return existingApiKey(r.state);
}
