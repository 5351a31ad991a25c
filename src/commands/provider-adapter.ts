import { DomainError } from '../aggregates/decider.ts';
import { provider } from '../aggregates/provider.ts';
import type { Config } from '../config.ts';
import { credentialsKey, decryptCredentials } from '../crypto/credentials.ts';
import type { ProviderContext, ProviderEnvironment, ProviderPort } from '../providers/port.ts';
import { createSafe2PayAdapter } from '../providers/safe2pay/adapter.ts';
import { simulatorAdapter } from '../providers/simulator.ts';
import type { CommandDeps } from './command-handler.ts';
import { foldStream } from './fold-stream.ts';
import { credentialsBinding, providerHostRefusal, providerStream } from './providers.ts';

/**
 * Provider record -> adapter of the one port (DESIGN.md "Providers", issue 13 item 1), for every operation.
 * A record of kind `simulator`, and every test-mode charge (SPEC 1, 5.2: test keys never reach a provider),
 * gets the simulator adapter; a record of kind `external` gets the Safe2Pay adapter on the record's hosts,
 * with its environment, its decrypted `{ api_key }` and, per call, an AbortSignal.timeout(PROVIDER_TIMEOUT_MS).
 *
 * The record is folded from its stream (always consistent, also while async read models catch up). Anything
 * that keeps the adapter from sending (record missing or not external, no credentials, no encryption key,
 * a ciphertext that does not open (also: sealed for other hosts), no `api_key`, a host its environment's
 * rule refuses) is `422 provider_not_configured`; the message never holds
 * the secret or why it did not open.
 */

export interface ResolvedExternal {
  readonly providerId: string;
  readonly environment: ProviderEnvironment;
  readonly adapter: ProviderPort;
  /** A fresh context per call: its own timeout starts when the call does. */
  context(): ProviderContext;
}

export interface AdapterContext {
  deps: Pick<CommandDeps, 'store' | 'registry'>;
  config: Pick<
    Config,
    'CREDENTIALS_ENCRYPTION_KEY' | 'DATABASE_URL' | 'CALEBE_DATA_DIR' | 'PROVIDER_TIMEOUT_MS'
  > &
    Partial<Pick<Config, 'PROVIDER_ALLOWED_PRIVATE_HOSTS'>>;
  /** The application context, the key of {@link decorateProviderAdapters}; none: adapters as resolved. */
  adapters?: object | undefined;
}

/** What an operation knows of the provider behind a charge: its record, or none for a test-mode charge. */
export interface AdapterRecord {
  readonly providerId: string | null;
  readonly simulated: boolean;
}

export interface ResolvedAdapter {
  readonly providerId: string | null;
  readonly kind: 'simulator' | 'external';
  readonly environment: ProviderEnvironment;
  readonly adapter: ProviderPort;
  context(): ProviderContext;
}

export type AdapterDecorator = (
  adapter: ProviderPort,
  record: { readonly providerId: string | null; readonly kind: 'simulator' | 'external' },
) => ProviderPort;

const decorators = new WeakMap<object, AdapterDecorator>();

/**
 * Wraps every adapter resolved for one application context (tests count or gate the simulator's calls).
 * Keyed by the context object, so two gateways in one process never share a decorator.
 */
export function decorateProviderAdapters(context: object, decorate: AdapterDecorator): void {
  decorators.set(context, decorate);
}

function decorated(ctx: AdapterContext, resolved: ResolvedAdapter): ResolvedAdapter {
  const decorate = ctx.adapters ? decorators.get(ctx.adapters) : undefined;
  if (!decorate) return resolved;
  return { ...resolved, adapter: decorate(resolved.adapter, resolved) };
}

function simulatorResolution(ctx: AdapterContext, providerId: string | null): ResolvedAdapter {
  const timeoutMs = ctx.config.PROVIDER_TIMEOUT_MS;
  return {
    providerId,
    kind: 'simulator',
    environment: 'sandbox',
    adapter: simulatorAdapter,
    context: () => ({ environment: 'sandbox', credentials: {}, signal: AbortSignal.timeout(timeoutMs) }),
  };
}

/**
 * The adapter of a charge's provider. A simulated charge is the simulator's whatever its record says now
 * (routing changes never move an existing charge, SPEC 2.8); anything else is its record's adapter, and an
 * external record that cannot send is `422 provider_not_configured` (see {@link resolveExternalAdapter}).
 */
export async function resolveAdapter(ctx: AdapterContext, record: AdapterRecord): Promise<ResolvedAdapter> {
  if (record.simulated || record.providerId === null) {
    return decorated(ctx, simulatorResolution(ctx, record.providerId));
  }
  const external = await resolveExternalAdapter(ctx, record.providerId);
  return decorated(ctx, { ...external, kind: 'external' });
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
  // Issue 23 item 2.3: checked again at call time, so a record stored before the rule, or under an allowance
  // since removed, sends nothing to a host the rule refuses.
  const allowed = ctx.config.PROVIDER_ALLOWED_PRIVATE_HOSTS ?? [];
  for (const host of [state.paymentHost, state.apiHost]) {
    if (host !== null && providerHostRefusal(state.environment, host, allowed) !== null) {
      throw notConfigured("The external provider's host is not allowed for its environment.");
    }
  }
  const key = await credentialsKey(ctx.config);
  if (!key) throw notConfigured('The server cannot open provider credentials (CREDENTIALS_ENCRYPTION_KEY).');
  let credentials: Record<string, string>;
  try {
    // Bound to the record's hosts (v2): credentials never follow a host change they were not entered for.
    const opened = decryptCredentials(
      key,
      providerId,
      state.credentialsCiphertext,
      credentialsBinding(state),
    );
    credentials = stringEntries(opened);
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
