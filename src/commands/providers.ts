import { DomainError } from '../aggregates/decider.ts';
import {
  type PaymentMethod,
  type ProviderCreatedData,
  type ProviderState,
  provider,
} from '../aggregates/provider.ts';
import type { Config } from '../config.ts';
import {
  type Credentials,
  type CredentialsBinding,
  credentialsKey,
  decryptCredentials,
  encryptCredentials,
} from '../crypto/credentials.ts';
import type { EventMetadata } from '../events/event-store.ts';
import { newId } from '../ids.ts';
import {
  type AdapterHosts,
  type CapabilityNeeds,
  missingCapability,
  type ProviderRegistry,
} from '../providers/registry.ts';
import { SAFE2PAY_API_HOST, SAFE2PAY_PAYMENT_HOST } from '../providers/safe2pay/adapter.ts';
import { checkDestinationSyntax, forbiddenAddress } from '../webhooks/ssrf-guard.ts';
import { type CommandDeps, handleCommand } from './command-handler.ts';
import { foldStream } from './fold-stream.ts';

/** Provider commands (SPEC 2.7, 4.14; super_admin only, checked by HTTP). */

export const providerStream = (providerId: string) => `provider-${providerId}`;

export interface ProviderDeps extends CommandDeps {
  /** Without PROVIDER_ALLOWED_PRIVATE_HOSTS (a partial configuration): no exception. */
  config: Pick<Config, 'CREDENTIALS_ENCRYPTION_KEY' | 'DATABASE_URL' | 'CALEBE_DATA_DIR'> &
    Partial<Pick<Config, 'PROVIDER_ALLOWED_PRIVATE_HOSTS'>>;
  /** Where adapters come from (the application context, src/commands/provider-adapter.ts). */
  adapters: { readonly providers: ProviderRegistry };
}

/**
 * Issue 23 item 2.3: why a provider host may not be stored or called, or null. A production record's hosts
 * are https and public: the destination rule of webhooks (src/webhooks/ssrf-guard.ts, without DNS) refuses
 * http, credentials in the URL, `localhost` names and literal loopback, private, link-local, reserved and
 * cloud-metadata addresses, except the `host`/`host:port` entries of PROVIDER_ALLOWED_PRIVATE_HOSTS
 * (development: the emulator on loopback), which may use http and a private address but never a metadata
 * one. A sandbox record (test credentials, test payers) keeps http and private hosts for emulators, never a
 * metadata address. Names are not resolved here: what a name resolves to is the adapter's connection.
 */
export function providerHostRefusal(
  environment: ProviderCreatedData['environment'],
  host: string,
  allowedPrivateHosts: readonly string[],
): string | null {
  if (environment === 'production') {
    const check = checkDestinationSyntax(host, { allowedPrivateHosts });
    return check.ok ? null : check.reason;
  }
  if (!URL.canParse(host)) return 'not a valid URL';
  const name = new URL(host).hostname.replace(/^\[|\]$/g, '');
  const forbidden = forbiddenAddress(name);
  return forbidden === 'a cloud metadata address' ? `URL host is ${forbidden}` : null;
}

/** providerHostRefusal for each host given: 422 validation_error naming the field. */
function checkHostPolicy(
  deps: ProviderDeps,
  environment: ProviderCreatedData['environment'],
  hosts: { payment_host?: string | null | undefined; api_host?: string | null | undefined },
): void {
  for (const [param, host] of Object.entries(hosts)) {
    if (typeof host !== 'string') continue;
    const allowed = deps.config.PROVIDER_ALLOWED_PRIVATE_HOSTS ?? [];
    const refusal = providerHostRefusal(environment, host, allowed);
    if (refusal !== null) {
      throw new DomainError(
        'validation_error',
        `Invalid ${param}: ${refusal}. A production provider's host must be public https (PROVIDER_ALLOWED_PRIVATE_HOSTS lists development exceptions).`,
        { param },
      );
    }
  }
}

/**
 * Issue 24 item 5: a record turns on only what its kind's adapter can do (a method's capability, payouts for
 * `boleto_refund_payout`); anything else is 422 validation_error on the field that asked for it.
 */
function checkCapabilities(
  deps: ProviderDeps,
  kind: ProviderCreatedData['kind'],
  hosts: AdapterHosts,
  needs: CapabilityNeeds,
): void {
  const missing = missingCapability(deps.adapters.providers[kind](hosts), needs);
  if (missing !== null) {
    throw new DomainError(
      'validation_error',
      `The ${kind} provider does not support ${missing.capability}.`,
      { param: missing.param },
    );
  }
}

/** What sealed credentials are bound to (src/crypto/credentials.ts v2): the record's stored hosts. */
export function credentialsBinding(hosts: {
  paymentHost: string | null;
  apiHost: string | null;
}): CredentialsBinding {
  return [hosts.paymentHost, hosts.apiHost];
}

/** What the panel sees of a provider: never the credentials, only whether there are some. */
export interface ProviderView {
  id: string;
  name: string;
  kind: ProviderCreatedData['kind'];
  environment: ProviderCreatedData['environment'];
  enabled_methods: PaymentMethod[];
  is_marketplace: boolean;
  enabled: boolean;
  has_credentials: boolean;
  /** Issue 13: the effective Safe2Pay hosts of an external provider (defaults: the real ones); null for the simulator. */
  payment_host: string | null;
  api_host: string | null;
  /** Issue 22 item 4.2: a boleto paid by boleto may be refunded by a payout through this provider. */
  boleto_refund_payout: boolean;
}

/** The hosts a provider answers with: the stored ones, else the real Safe2Pay hosts; none for the simulator. */
export function effectiveHosts(
  kind: ProviderCreatedData['kind'],
  stored: { paymentHost: string | null; apiHost: string | null },
): { payment_host: string | null; api_host: string | null } {
  if (kind === 'simulator') return { payment_host: null, api_host: null };
  return {
    payment_host: stored.paymentHost ?? SAFE2PAY_PAYMENT_HOST,
    api_host: stored.apiHost ?? SAFE2PAY_API_HOST,
  };
}

export function providerView(state: ProviderState): ProviderView | undefined {
  if (state.status === 'none') return undefined;
  return {
    id: state.providerId,
    name: state.name,
    kind: state.kind,
    environment: state.environment,
    enabled_methods: [...state.enabledMethods],
    is_marketplace: state.isMarketplace,
    enabled: state.enabled,
    has_credentials: state.credentialsCiphertext !== null,
    ...effectiveHosts(state.kind, state),
    boleto_refund_payout: state.boletoRefundPayout,
  };
}

function existing(state: ProviderState): ProviderView {
  const view = providerView(state);
  if (!view) throw new Error('a provider command ended without a provider');
  return view;
}

export async function loadProvider(
  deps: Pick<CommandDeps, 'store' | 'registry'>,
  providerId: string,
): Promise<ProviderView | undefined> {
  return providerView(await foldStream(deps, provider, providerStream(providerId)));
}

/**
 * Seals credentials for one provider. Without a key (DATABASE_URL set, CREDENTIALS_ENCRYPTION_KEY unset)
 * storing them is refused as `422 validation_error` on `credentials`: the request names a field the server
 * cannot accept as configured, and nothing is written (docs/decisions.md "Admin").
 */
async function seal(
  deps: ProviderDeps,
  providerId: string,
  credentials: Credentials,
  binding: CredentialsBinding,
): Promise<string> {
  return encryptCredentials(await requireKey(deps), providerId, credentials, binding);
}

async function requireKey(deps: ProviderDeps): Promise<Buffer> {
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

export interface CreateProviderInput {
  /** Chosen by the server unless given (bootstrap, tests). */
  providerId?: string;
  name: string;
  kind: ProviderCreatedData['kind'];
  environment: ProviderCreatedData['environment'];
  enabledMethods: readonly PaymentMethod[];
  isMarketplace: boolean;
  credentials?: Credentials | undefined;
  paymentHost?: string | undefined;
  apiHost?: string | undefined;
  boletoRefundPayout?: boolean | undefined;
}

export async function createProvider(
  deps: ProviderDeps,
  input: CreateProviderInput,
  metadata: EventMetadata,
): Promise<{ provider: ProviderView; created: boolean }> {
  const providerId = input.providerId ?? newId('prv');
  if (input.kind === 'external') {
    checkHostPolicy(deps, input.environment, { payment_host: input.paymentHost, api_host: input.apiHost });
  }
  const hosts = { paymentHost: input.paymentHost ?? null, apiHost: input.apiHost ?? null };
  checkCapabilities(deps, input.kind, hosts, {
    enabledMethods: input.enabledMethods,
    boletoRefundPayout: input.boletoRefundPayout === true,
  });
  const binding = credentialsBinding(hosts);
  const credentialsCiphertext = input.credentials
    ? await seal(deps, providerId, input.credentials, binding)
    : null;
  const r = await handleCommand(
    deps,
    provider,
    providerStream(providerId),
    {
      kind: 'create',
      providerId,
      name: input.name.trim(),
      providerKind: input.kind,
      environment: input.environment,
      enabledMethods: input.enabledMethods,
      isMarketplace: input.isMarketplace,
      credentialsCiphertext,
      paymentHost: input.paymentHost,
      apiHost: input.apiHost,
      boletoRefundPayout: input.boletoRefundPayout,
    },
    // A concurrent identical creation (two instances bootstrapping) re-decides into a no-op.
    { metadata, retryOnConflict: true },
  );
  return { provider: existing(r.state), created: r.events.length > 0 };
}

export interface UpdateProviderInput {
  name?: string | undefined;
  enabled?: boolean | undefined;
  enabledMethods?: readonly PaymentMethod[] | undefined;
  credentials?: Credentials | undefined;
  /** null returns to the default host. */
  paymentHost?: string | null | undefined;
  apiHost?: string | null | undefined;
  boletoRefundPayout?: boolean | undefined;
  /**
   * Server configuration only, never a request (the PROVIDER_EMULATOR_URL wiring follows its own URL): the
   * stored credentials are opened for the old hosts and sealed again for the new ones.
   */
  resealStoredCredentials?: boolean | undefined;
}

export async function updateProvider(
  deps: ProviderDeps,
  providerId: string,
  input: UpdateProviderInput,
  metadata: EventMetadata,
): Promise<ProviderView> {
  const current = await foldStream(deps, provider, providerStream(providerId));
  let credentialsCiphertext: string | undefined;
  let binding: CredentialsBinding | undefined;
  if (current.status === 'active') {
    if (current.kind === 'external') {
      checkHostPolicy(deps, current.environment, {
        payment_host: input.paymentHost,
        api_host: input.apiHost,
      });
    }
    const next = {
      paymentHost: input.paymentHost !== undefined ? input.paymentHost : current.paymentHost,
      apiHost: input.apiHost !== undefined ? input.apiHost : current.apiHost,
    };
    // What this update turns on; what the record already had stays as it is.
    checkCapabilities(deps, current.kind, next, {
      enabledMethods: input.enabledMethods ?? [],
      boletoRefundPayout: input.boletoRefundPayout === true,
    });
    binding = credentialsBinding(next);
    if (input.credentials) {
      credentialsCiphertext = await seal(deps, providerId, input.credentials, binding);
    } else if (input.resealStoredCredentials && current.credentialsCiphertext !== null) {
      const key = await requireKey(deps);
      const stored = decryptCredentials(
        key,
        providerId,
        current.credentialsCiphertext,
        credentialsBinding(current),
      );
      credentialsCiphertext = encryptCredentials(key, providerId, stored, binding);
    }
  }
  const r = await handleCommand(
    deps,
    provider,
    providerStream(providerId),
    {
      kind: 'update',
      name: input.name?.trim(),
      enabled: input.enabled,
      enabledMethods: input.enabledMethods,
      credentialsCiphertext,
      credentialsBinding: credentialsCiphertext !== undefined ? binding : undefined,
      paymentHost: input.paymentHost,
      apiHost: input.apiHost,
      boletoRefundPayout: input.boletoRefundPayout,
    },
    // The decision depends on the stream alone; the sealed secret is bound to the id and hosts, which the
    // decider compares with the result (a host change in between is a conflict, not a secret for other hosts).
    { metadata, retryOnConflict: true },
  );
  return existing(r.state);
}

/**
 * Issue 22 item 4.2: whether a charge's boleto refund may go out as a payout (`v2/Transfer`): only where its
 * provider record enables it (`boleto_refund_payout`). A test-mode charge follows the same record (test mode
 * mirrors live; its payout is the simulator's); a charge with no record, or a record that does not exist, never.
 * The record is folded from its stream (consistent, also while async read models catch up). Whether the
 * record is enabled for new charges does not matter: existing charges keep their provider (SPEC 2.8).
 */
export async function refundPayoutEnabled(
  deps: Pick<CommandDeps, 'store' | 'registry'>,
  charge: { readonly providerId: string | null; readonly simulated: boolean },
): Promise<boolean> {
  if (charge.providerId === null) return false;
  const state = await foldStream(deps, provider, providerStream(charge.providerId));
  return state.status === 'active' && state.boletoRefundPayout;
}

export function providerDeps(ctx: {
  store: CommandDeps['store'];
  events: CommandDeps['registry'];
  now: () => Date;
  config: ProviderDeps['config'];
  providers: ProviderRegistry;
}): ProviderDeps {
  // `now` and the registry are read at each call, so tests that replace them reach the commands too.
  return { store: ctx.store, registry: ctx.events, now: () => ctx.now(), config: ctx.config, adapters: ctx };
}
