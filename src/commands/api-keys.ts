import type { AccessProfile, Scope } from '../aggregates/access.ts';
import { type ApiKeyState, type ApiKeyStatus, apiKey } from '../aggregates/api-key.ts';
import { API_KEY_PREFIX, displayPrefix, randomSecret, sha256Hex } from '../crypto/secrets.ts';
import type { EventMetadata } from '../events/event-store.ts';
import { newId } from '../ids.ts';
import { type CommandDeps, handleCommand } from './command-handler.ts';
import { foldStream } from './fold-stream.ts';
import { loadTenant } from './tenants.ts';

/** API key commands (SPEC 2.7, 5). Who may issue which scopes (SPEC 5.3, 5.7) is checked by the caller. */

/** A key as listings show it: never the secret, nor its digest. */
export interface ApiKeyRecord {
  id: string;
  tenant_id: string;
  livemode: boolean;
  name: string;
  scopes: Scope[];
  access_profile: AccessProfile;
  /** The first characters of the secret, so a person can recognize the key. */
  prefix: string;
  created_by: string;
  status: ApiKeyStatus;
}

export const apiKeyStream = (keyId: string) => `api_key-${keyId}`;

function view(state: ApiKeyState): ApiKeyRecord | undefined {
  if (state.status === 'none') return undefined;
  return {
    id: state.key_id,
    tenant_id: state.tenant_id,
    livemode: state.livemode,
    name: state.name,
    scopes: [...state.scopes],
    access_profile: state.access_profile,
    prefix: state.prefix,
    created_by: state.created_by,
    status: state.status,
  };
}

function existing(state: ApiKeyState): ApiKeyRecord {
  const record = view(state);
  if (!record) throw new Error('an API key command ended without a key');
  return record;
}

/** A key folded from its stream; undefined when it does not exist. */
export async function loadApiKey(
  deps: Pick<CommandDeps, 'store' | 'registry'>,
  keyId: string,
): Promise<ApiKeyRecord | undefined> {
  return view(await foldStream(deps, apiKey, apiKeyStream(keyId)));
}

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

/** Issues a key for an existing tenant; its prefix states its mode (SPEC 5.2). */
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
  return { keyId, key, record: existing(r.state) };
}

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
  return existing(r.state);
}
