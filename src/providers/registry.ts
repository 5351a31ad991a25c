import type { PaymentMethod, ProviderCreatedData } from '../aggregates/provider.ts';
import type { Capability, ProviderPort } from './port.ts';
import { createSafe2PayAdapter } from './safe2pay/adapter.ts';
import { simulatorAdapter } from './simulator.ts';

/**
 * The adapter registry (DESIGN.md "Providers", issue 24 item 5): the provider record's kind -> the adapter
 * serving it. The application builds {@link defaultProviderRegistry} into its context (src/app.ts); a test
 * that counts, gates or faults provider calls puts a {@link decorateRegistry} of it there instead. A new
 * provider is one more kind here; a new capability is one more optional field of the port (port.ts).
 */

export type ProviderKind = ProviderCreatedData['kind'];

/** What a record's adapter is built from: its hosts (null: the adapter's default). */
export interface AdapterHosts {
  readonly paymentHost: string | null;
  readonly apiHost: string | null;
}

export type ProviderRegistry = { readonly [K in ProviderKind]: (hosts: AdapterHosts) => ProviderPort };

export const defaultProviderRegistry: ProviderRegistry = {
  // One per process: its memory is only what its reads answer from (simulator.ts).
  simulator: () => simulatorAdapter,
  external: (hosts) =>
    createSafe2PayAdapter({
      ...(hosts.paymentHost ? { paymentHost: hosts.paymentHost } : {}),
      ...(hosts.apiHost ? { apiHost: hosts.apiHost } : {}),
    }),
};

export type AdapterDecorator = (adapter: ProviderPort, kind: ProviderKind) => ProviderPort;

/** `registry` with every adapter it builds passed through `decorate`. */
export function decorateRegistry(registry: ProviderRegistry, decorate: AdapterDecorator): ProviderRegistry {
  return {
    simulator: (hosts) => decorate(registry.simulator(hosts), 'simulator'),
    external: (hosts) => decorate(registry.external(hosts), 'external'),
  };
}

/** What each payment method of a record's `enabled_methods` needs of its adapter. */
const METHOD_CAPABILITY: Readonly<Record<PaymentMethod, Capability>> = {
  pix: 'charges',
  boleto: 'charges',
  credit_card: 'cards',
};

/** What a provider record turns on: its methods and, with `boleto_refund_payout`, payouts. */
export interface CapabilityNeeds {
  readonly enabledMethods: readonly PaymentMethod[];
  readonly boletoRefundPayout: boolean;
}

/**
 * Configuration time: the first capability a record would turn on that its adapter lacks, with the field
 * that turns it on; null when the adapter has them all.
 */
export function missingCapability(
  adapter: ProviderPort,
  needs: CapabilityNeeds,
): { readonly capability: Capability; readonly param: 'enabled_methods' | 'boleto_refund_payout' } | null {
  for (const method of needs.enabledMethods) {
    const capability = METHOD_CAPABILITY[method];
    if (adapter[capability] === undefined) return { capability, param: 'enabled_methods' };
  }
  if (needs.boletoRefundPayout && adapter.payouts === undefined) {
    return { capability: 'payouts', param: 'boleto_refund_payout' };
  }
  return null;
}
