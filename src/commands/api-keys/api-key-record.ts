import type { AccessProfile, Scope } from '../../aggregates/access.ts';
import { type ApiKeyStatus, apiKey } from '../../aggregates/api-key.ts';
import { aggregateRecord } from '../aggregate-record.ts';

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

const record = aggregateRecord(
  apiKey,
  apiKeyStream,
  (state): ApiKeyRecord => ({
    id: state.key_id,
    tenant_id: state.tenant_id,
    livemode: state.livemode,
    name: state.name,
    scopes: [...state.scopes],
    access_profile: state.access_profile,
    prefix: state.prefix,
    created_by: state.created_by,
    status: state.status,
  }),
  'API key',
);

/** The key a command ended with (every key command ends with one). */
export const existingApiKey = record.commanded;
/** A key folded from its stream; undefined when it does not exist. */
export const loadApiKey = record.load;
