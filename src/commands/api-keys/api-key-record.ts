import type { AccessProfile, Scope } from '../../aggregates/access.ts';
import { type ApiKeyState, type ApiKeyStatus, apiKey } from '../../aggregates/api-key.ts';
import type { CommandDeps } from '../command-handler.ts';
import { foldStream } from '../fold-stream.ts';

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

/** The key a command ended with (every key command ends with one). */
export function existingApiKey(state: ApiKeyState): ApiKeyRecord {
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
