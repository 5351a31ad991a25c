import type { ProviderContext } from '../port.ts';
import type { BuildOptions } from './build-request.ts';
import type { Interpreted } from './wire-values.ts';

/** One authenticated request to Safe2Pay, its answer's envelope interpreted (adapter.ts). */
export type Call = (
  ctx: ProviderContext,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  body?: Record<string, unknown>,
) => Promise<Interpreted>;

/**
 * What the adapter hands the capabilities it builds apart (cards.ts, transfers.ts): its hosts, its request
 * options and its call, so each speaks to the provider exactly as the charge calls do.
 */
export interface CapabilityWire {
  readonly paymentHost: string;
  readonly apiHost: string;
  readonly buildOptions: BuildOptions;
  readonly call: Call;
}
