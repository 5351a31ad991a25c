import { DomainError } from '../../aggregates/decider.ts';
import type { ProviderCreatedData } from '../../aggregates/provider.ts';
import { type AdapterHosts, type CapabilityNeeds, missingCapability } from '../../providers/registry.ts';
import type { ProviderDeps } from './deps.ts';

/**
 * Issue 24 item 5: a record turns on only what its kind's adapter can do (a method's capability, payouts for
 * `boleto_refund_payout`); anything else is 422 validation_error on the field that asked for it.
 */
export function checkCapabilities(
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
