import { DomainError } from '../aggregates/decider.ts';
import {
  type PaymentMethod,
  type ProviderCreatedData,
  type ProviderState,
  provider,
} from '../aggregates/provider.ts';
import type { Config } from '../config.ts';
import { type Credentials, credentialsKey, encryptCredentials } from '../crypto/credentials.ts';
import type { EventMetadata } from '../events/event-store.ts';
import { newId } from '../ids.ts';
import { SAFE2PAY_API_HOST, SAFE2PAY_PAYMENT_HOST } from '../providers/safe2pay/adapter.ts';
import { type CommandDeps, handleCommand } from './command-handler.ts';
import { foldStream } from './fold-stream.ts';

/** Provider commands (SPEC 2.7, 4.14; super_admin only, checked by HTTP). */

export const providerStream = (providerId: string) => `provider-${providerId}`;

export interface ProviderDeps extends CommandDeps {
  config: Pick<Config, 'CREDENTIALS_ENCRYPTION_KEY' | 'DATABASE_URL' | 'CALEBE_DATA_DIR'>;
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
async function seal(deps: ProviderDeps, providerId: string, credentials: Credentials): Promise<string> {
  const key = await credentialsKey(deps.config);
  if (!key) {
    throw new DomainError(
      'validation_error',
      'Credentials cannot be stored: the server has no CREDENTIALS_ENCRYPTION_KEY configured.',
      { param: 'credentials' },
    );
  }
  return encryptCredentials(key, providerId, credentials);
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
  const credentialsCiphertext = input.credentials ? await seal(deps, providerId, input.credentials) : null;
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
}

export async function updateProvider(
  deps: ProviderDeps,
  providerId: string,
  input: UpdateProviderInput,
  metadata: EventMetadata,
): Promise<ProviderView> {
  const credentialsCiphertext = input.credentials
    ? await seal(deps, providerId, input.credentials)
    : undefined;
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
      paymentHost: input.paymentHost,
      apiHost: input.apiHost,
      boletoRefundPayout: input.boletoRefundPayout,
    },
    // The decision depends on the stream alone, and the sealed secret is bound to the id, not the version.
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
}): ProviderDeps {
  // `now` is read at each call, so tests that replace ctx.now move the commands' clock too.
  return { store: ctx.store, registry: ctx.events, now: () => ctx.now(), config: ctx.config };
}
