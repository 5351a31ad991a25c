import type { Kysely } from 'kysely';
import { createEventRegistry } from '../../src/commands/index.ts';
import type { JobDeps } from '../../src/commands/job.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/schema.ts';
import type { EventStore } from '../../src/events/event-store.ts';
import { defaultProviderRegistry } from '../../src/providers/registry.ts';

const silent: JobDeps['logger'] = { info() {}, warn() {}, error() {} };

/** What a job uses (src/commands/job.ts) on a test database: the default configuration with `config` over it. */
export function jobDeps(
  db: Kysely<Database>,
  store: EventStore,
  opts: { config?: Partial<Config>; logger?: JobDeps['logger'] } = {},
): JobDeps {
  return {
    config: { ...loadConfig({}), ...opts.config },
    logger: opts.logger ?? silent,
    db,
    store,
    events: createEventRegistry(),
    providers: defaultProviderRegistry,
  };
}
