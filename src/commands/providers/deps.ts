import type { Config } from '../../config.ts';
import type { ProviderRegistry } from '../../providers/registry.ts';
import type { CommandDeps } from '../command-handler.ts';

/** What the provider commands need: the store and, for hosts and credentials, part of the configuration. */
export interface ProviderDeps extends CommandDeps {
  /** Without PROVIDER_ALLOWED_PRIVATE_HOSTS (a partial configuration): no exception. */
  config: Pick<Config, 'CREDENTIALS_ENCRYPTION_KEY' | 'DATABASE_URL' | 'CALEBE_DATA_DIR'> &
    Partial<Pick<Config, 'PROVIDER_ALLOWED_PRIVATE_HOSTS'>>;
  /** Where adapters come from (the application context, src/commands/provider-adapter.ts). */
  adapters: { readonly providers: ProviderRegistry };
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
