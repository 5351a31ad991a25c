import { DomainError } from '../aggregates/decider.ts';
import { provider } from '../aggregates/provider.ts';
import type { Config } from '../config.ts';
import { credentialsKey, decryptCredentials } from '../crypto/credentials.ts';
import type { ExternalProvider, ProviderContext, ProviderEnvironment } from '../providers/port.ts';
import { createSafe2PayAdapter } from '../providers/safe2pay/adapter.ts';
import type { CommandDeps } from './command-handler.ts';
import { foldStream } from './fold-stream.ts';
import { providerStream } from './providers.ts';

/**
 * Provider record -> adapter (DESIGN.md "Providers", issue 13). The simulator needs no resolution (charges.ts
 * keeps its own path); a record of kind `external` gets the Safe2Pay adapter on the record's hosts, with its
 * environment, its decrypted `{ api_key }` and, per call, an AbortSignal.timeout(PROVIDER_TIMEOUT_MS).
 *
 * The record is folded from its stream (always consistent, also while async read models catch up). Anything
 * that keeps the adapter from sending (record missing or not external, no credentials, no encryption key,
 * a ciphertext that does not open, no `api_key`) is `422 provider_not_configured`; the message never holds
 * the secret or why it did not open.
 */

export interface ResolvedExternal {
  readonly providerId: string;
  readonly environment: ProviderEnvironment;
  readonly adapter: ExternalProvider;
  /** A fresh context per call: its own timeout starts when the call does. */
  context(): ProviderContext;
}

export interface AdapterContext {
  deps: Pick<CommandDeps, 'store' | 'registry'>;
  config: Pick<
    Config,
    'CREDENTIALS_ENCRYPTION_KEY' | 'DATABASE_URL' | 'CALEBE_DATA_DIR' | 'PROVIDER_TIMEOUT_MS'
  >;
}

function notConfigured(message: string): DomainError {
  return new DomainError('provider_not_configured', message);
}

/** Only string values are credentials the adapter can send; anything else is dropped. */
function stringEntries(value: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''),
  );
}

export async function resolveExternalAdapter(
  ctx: AdapterContext,
  providerId: string,
): Promise<ResolvedExternal> {
  const state = await foldStream(ctx.deps, provider, providerStream(providerId));
  if (state.status === 'none' || state.kind !== 'external') {
    throw notConfigured('The routed provider is not an external provider.');
  }
  if (state.credentialsCiphertext === null) {
    throw notConfigured('The external provider has no credentials.');
  }
  const key = await credentialsKey(ctx.config);
  if (!key) throw notConfigured('The server cannot open provider credentials (CREDENTIALS_ENCRYPTION_KEY).');
  let credentials: Record<string, string>;
  try {
    credentials = stringEntries(decryptCredentials(key, providerId, state.credentialsCiphertext));
  } catch {
    throw notConfigured('The credentials of the external provider cannot be opened.');
  }
  if (!credentials.api_key) throw notConfigured('The external provider has no api_key credential.');
  const adapter = createSafe2PayAdapter({
    ...(state.paymentHost ? { paymentHost: state.paymentHost } : {}),
    ...(state.apiHost ? { apiHost: state.apiHost } : {}),
  });
  const environment = state.environment;
  const timeoutMs = ctx.config.PROVIDER_TIMEOUT_MS;
  return {
    providerId,
    environment,
    adapter,
    context: () => ({ environment, credentials, signal: AbortSignal.timeout(timeoutMs) }),
  };
}
