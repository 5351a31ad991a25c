import { DomainError } from '../aggregates/decider.ts';
import { provider } from '../aggregates/provider.ts';
import type { TransactionReservedData } from '../aggregates/transaction.ts';
import type { Config } from '../config.ts';
import { credentialsKey, decryptCredentials } from '../crypto/credentials.ts';
import type { ProviderContext, ProviderEnvironment, ProviderPort } from '../providers/port.ts';
import type { ProviderKind, ProviderRegistry } from '../providers/registry.ts';
import type { CommandDeps } from './command-handler.ts';
import { foldStream } from './fold-stream.ts';
import { credentialsBinding } from './providers/credentials.ts';
import { providerHostRefusal } from './providers/host-policy.ts';
import { providerStream } from './providers/record.ts';
import { notConfigured as subaccountNotConfigured, subaccountToken } from './subaccounts/route-link.ts';

/**
 * Provider record -> adapter of the one port (DESIGN.md "Providers", issue 13 item 1), for every operation,
 * from the registry of the application context (src/providers/registry.ts, keyed by the record's kind).
 * A record of kind `simulator`, and every test-mode charge (SPEC 1, 5.2: test keys never reach a provider),
 * gets the simulator adapter; a record of kind `external` gets its kind's adapter (Safe2Pay) on the record's
 * hosts, with its environment, its decrypted `{ api_key }` and, per call, an
 * AbortSignal.timeout(PROVIDER_TIMEOUT_MS).
 *
 * The record is folded from its stream (always consistent, also while async read models catch up). Anything
 * that keeps the adapter from sending (record missing or not external, no credentials, no encryption key,
 * a ciphertext that does not open (also: sealed for other hosts), no `api_key`, a host its environment's
 * rule refuses) is `422 provider_not_configured`; the message never holds
 * the secret or why it did not open.
 *
 * Issue 28 item 3 (SPEC 2.8, marketplace providers): a charge issued through a subaccount names it
 * (`subaccountId`), and every call about that charge is sent with that subaccount's token of the record's
 * environment (ProviderContext.subaccountToken, read from the subaccount's stream at resolution; the
 * context then carries no record credential at all, so the matrix key is never a fallback). A token gone
 * is `422 subaccount_credentials_missing` (subaccounts/route-link.ts); a charge of a marketplace record
 * without a subaccount is `422 subaccount_not_configured`, nothing sent.
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
  /**
   * Where adapters come from: the application context, whose registry is read at each resolution (a test
   * may put a wrapped one there after start).
   */
  adapters: { readonly providers: ProviderRegistry };
}

/** What an operation knows of the provider behind a charge: its record, or none for a test-mode charge. */
export interface AdapterRecord {
  readonly providerId: string | null;
  readonly simulated: boolean;
  /** The marketplace subaccount the charge was issued through (SPEC 2.2 `subaccount_id`), or null. */
  readonly subaccountId: string | null;
  /** Its token, when the caller has just opened it (routing): spares the read of the subaccount's stream. */
  readonly subaccountToken?: string | undefined;
}

/** The provider a reserved charge names, from its stored reservation (refreshes and changes resolve by it). */
export function reservedRecord(
  reserved: Pick<TransactionReservedData, 'provider_id' | 'simulated' | 'subaccount_id'>,
): AdapterRecord {
  return {
    providerId: reserved.provider_id,
    simulated: reserved.simulated,
    subaccountId: reserved.subaccount_id,
  };
}

/** A charge's side of an external resolution (omitted by subaccount management, which uses the matrix key). */
export interface ChargeAccount {
  readonly subaccountId: string | null;
  readonly subaccountToken?: string | undefined;
}

export interface ResolvedAdapter {
  readonly providerId: string | null;
  readonly kind: ProviderKind;
  readonly environment: ProviderEnvironment;
  readonly adapter: ProviderPort;
  context(): ProviderContext;
}

function simulatorResolution(ctx: AdapterContext, providerId: string | null): ResolvedAdapter {
  const timeoutMs = ctx.config.PROVIDER_TIMEOUT_MS;
  return {
    providerId,
    kind: 'simulator',
    environment: 'sandbox',
    adapter: ctx.adapters.providers.simulator({ paymentHost: null, apiHost: null }),
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
    return simulatorResolution(ctx, record.providerId);
  }
  const external = await resolveExternalAdapter(ctx, record.providerId, record);
  return { ...external, kind: 'external' };
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

/**
 * `charge`: the account of a charge (its subaccount or none); omitted only by subaccount management, whose
 * calls use the matrix record's own credentials (src/commands/subaccounts/provider.ts).
 */
export async function resolveExternalAdapter(
  ctx: AdapterContext,
  providerId: string,
  charge?: ChargeAccount,
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
  const environment = state.environment;
  let token: string | null = null;
  if (charge !== undefined && state.isMarketplace) {
    if (charge.subaccountId === null) throw subaccountNotConfigured();
    token =
      charge.subaccountToken ??
      (await subaccountToken(ctx, { subaccountId: charge.subaccountId, providerId, environment }));
  }
  if (token === null && !credentials.api_key) {
    throw notConfigured('The external provider has no api_key credential.');
  }
  const adapter = ctx.adapters.providers[state.kind]({
    paymentHost: state.paymentHost,
    apiHost: state.apiHost,
  });
  const timeoutMs = ctx.config.PROVIDER_TIMEOUT_MS;
  if (token !== null) {
    // The subaccount's own account: its token, and no credential of the matrix record (never a fallback).
    const subaccountKey = token;
    return {
      providerId,
      environment,
      adapter,
      context: () => ({
        environment,
        credentials: {},
        subaccountToken: subaccountKey,
        signal: AbortSignal.timeout(timeoutMs),
      }),
    };
  }
  return {
    providerId,
    environment,
    adapter,
    context: () => ({ environment, credentials, signal: AbortSignal.timeout(timeoutMs) }),
  };
}
