import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { EventRegistry } from '../../events/event-registry.ts';
import type { EventStore } from '../../events/event-store.ts';
import type { CommandDeps } from '../command-handler.ts';

/** What the identity commands need: the event store, the read models they consult, and the bcrypt cost. */
export interface IdentityDeps extends CommandDeps {
  db: Kysely<Database>;
  bcryptCost: number;
}

/** Reads `now` through the context at each call, so a test clock set on the context reaches the deciders. */
export function identityDeps(ctx: {
  store: EventStore;
  events: EventRegistry;
  db: Kysely<Database>;
  now: () => Date;
  config: { BCRYPT_COST: number };
}): IdentityDeps {
  return {
    store: ctx.store,
    registry: ctx.events,
    db: ctx.db,
    now: () => ctx.now(),
    bcryptCost: ctx.config.BCRYPT_COST,
  };
}
