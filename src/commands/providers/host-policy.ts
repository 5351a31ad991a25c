import { DomainError } from '../../aggregates/decider.ts';
import type { ProviderCreatedData } from '../../aggregates/provider.ts';
import { checkDestinationSyntax, forbiddenAddress } from '../../webhooks/ssrf-guard.ts';
import type { ProviderDeps } from './deps.ts';

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
export function checkHostPolicy(
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
