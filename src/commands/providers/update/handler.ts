import type { PaymentMethod } from '../../../aggregates/provider.ts';
import { provider } from '../../../aggregates/provider.ts';
import {
  type Credentials,
  type CredentialsBinding,
  decryptCredentials,
  encryptCredentials,
} from '../../../crypto/credentials.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { handleCommand } from '../../command-handler.ts';
import { foldStream } from '../../fold-stream.ts';
import { checkCapabilities } from '../capabilities.ts';
import { credentialsBinding, requireKey, seal } from '../credentials.ts';
import type { ProviderDeps } from '../deps.ts';
import { checkHostPolicy } from '../host-policy.ts';
import { commandedProvider, type ProviderView, providerStream } from '../record.ts';

/** Changing a provider (SPEC 2.7, 4.14; super_admin only, checked by the operation's access). */

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
  return commandedProvider(r.state);
}
