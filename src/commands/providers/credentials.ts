import { DomainError } from '../../aggregates/decider.ts';
import {
  type Credentials,
  type CredentialsBinding,
  credentialsKey,
  encryptCredentials,
} from '../../crypto/credentials.ts';
import type { ProviderDeps } from './deps.ts';

/** What sealed credentials are bound to (src/crypto/credentials.ts v2): the record's stored hosts. */
export function credentialsBinding(hosts: {
  paymentHost: string | null;
  apiHost: string | null;
}): CredentialsBinding {
  return [hosts.paymentHost, hosts.apiHost];
}

/**
 * Seals credentials for one provider. Without a key (DATABASE_URL set, CREDENTIALS_ENCRYPTION_KEY unset)
 * storing them is refused as `422 validation_error` on `credentials`: the request names a field the server
 * cannot accept as configured, and nothing is written (docs/decisions.md "Admin").
 */
export async function seal(
  deps: ProviderDeps,
  providerId: string,
  credentials: Credentials,
  binding: CredentialsBinding,
): Promise<string> {
  return encryptCredentials(await requireKey(deps), providerId, credentials, binding);
}

export async function requireKey(deps: ProviderDeps): Promise<Buffer> {
  const key = await credentialsKey(deps.config);
  if (!key) {
    throw new DomainError(
      'validation_error',
      'Credentials cannot be stored: the server has no CREDENTIALS_ENCRYPTION_KEY configured.',
      { param: 'credentials' },
    );
  }
  return key;
}
