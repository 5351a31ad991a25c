import type { AppContext } from '../../src/commands/context.ts';
import type { ChargesCapability, ProviderPort } from '../../src/providers/port.ts';
import { type AdapterDecorator, decorateRegistry } from '../../src/providers/registry.ts';

/**
 * Tests that count, gate or fault provider calls (issue 24 item 5): the gateway's context gets a wrapped
 * registry, so every adapter it resolves from now on (routes, reconciler, settler) passes through `decorate`.
 */
export function decorateProviders(ctx: Pick<AppContext, 'providers'>, decorate: AdapterDecorator): void {
  ctx.providers = decorateRegistry(ctx.providers, decorate);
}

/** `adapter` with some charge operations replaced; the others are its own. */
export function withCharges(adapter: ProviderPort, charges: Partial<ChargesCapability>): ProviderPort {
  return { ...adapter, charges: { ...adapter.charges, ...charges } };
}
