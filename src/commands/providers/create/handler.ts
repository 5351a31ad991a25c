import type { PaymentMethod, ProviderCreatedData } from '../../../aggregates/provider.ts';
import { provider } from '../../../aggregates/provider.ts';
import type { Credentials } from '../../../crypto/credentials.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { newId } from '../../../ids.ts';
import { handleCommand } from '../../command-handler.ts';
import { checkCapabilities } from '../capabilities.ts';
import { credentialsBinding, seal } from '../credentials.ts';
import type { ProviderDeps } from '../deps.ts';
import { checkHostPolicy } from '../host-policy.ts';
import { commandedProvider, type ProviderView, providerStream } from '../record.ts';

/** Creating a provider (SPEC 2.7, 4.14; super_admin only, checked by the operation's access). */

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
  return { provider: commandedProvider(r.state), created: r.events.length > 0 };
}
