import type { AccessProfile, Scope } from '../../../aggregates/access.ts';
import { apiKey } from '../../../aggregates/api-key.ts';
import { API_KEY_PREFIX, displayPrefix, randomSecret, sha256Hex } from '../../../crypto/secrets.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { newId } from '../../../ids.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import { loadTenant } from '../../tenants/tenant-record.ts';
import { type ApiKeyRecord, apiKeyStream, existingApiKey } from '../api-key-record.ts';

export interface IssueApiKeyInput {
  /** Chosen by the server unless given (tests, imports). */
  keyId?: string;
  tenantId: string;
  livemode: boolean;
  name: string;
  scopes: readonly Scope[];
  /** SPEC 5.4: fixed by the server from the issuing user's abilities, never chosen by the client. */
  accessProfile: AccessProfile;
  /** `user:<id>` | `system:<job>`. */
  createdBy: string;
}

export interface IssuedApiKey {
  keyId: string;
  /** The secret. It exists only here: events and read models keep its SHA-256 (SPEC 5.1, 2.7). */
  key: string;
  record: ApiKeyRecord;
}

/**
 * Issues a key for an existing tenant; its prefix states its mode (SPEC 2.7, 5.2). Who may issue which
 * scopes (SPEC 5.3, 5.7) is checked by the caller.
 */
export async function issueApiKey(
  deps: CommandDeps,
  input: IssueApiKeyInput,
  metadata: EventMetadata,
): Promise<IssuedApiKey> {
  const keyId = input.keyId ?? newId('key');
  const key = randomSecret(input.livemode ? API_KEY_PREFIX.live : API_KEY_PREFIX.test);
  const tenant = await loadTenant(deps, input.tenantId);
  const r = await handleCommand(
    deps,
    apiKey,
    apiKeyStream(keyId),
    {
      kind: 'issue',
      keyId,
      tenantId: input.tenantId,
      // Tenants are never deleted: once the stream exists, the fact holds.
      tenantExists: tenant !== undefined,
      livemode: input.livemode,
      name: input.name.trim(),
      scopes: input.scopes,
      accessProfile: input.accessProfile,
      secretSha256: sha256Hex(key),
      prefix: displayPrefix(key),
      createdBy: input.createdBy,
    },
    { metadata, retryOnConflict: true },
  );
  return { keyId, key, record: existingApiKey(r.state) };
}
