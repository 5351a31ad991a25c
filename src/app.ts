import type { Config } from './config.ts';
import { type DatabaseHandle, openDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import type { EventStore } from './events/event-store.ts';
import { PostgresEventStore } from './events/postgres-event-store.ts';
import { createEventRegistry } from './events/registry.ts';
import { createApiKeyAuthenticator } from './http/api-key-auth.ts';
import type { AppContext } from './http/context.ts';
import { createMemoryRateLimiter } from './http/rate-limit.ts';
import { buildHttpServer, type HttpServer } from './http/server.ts';
import { createSessionAuthenticator } from './http/session-auth.ts';
import { createLogger, type Logger } from './logger.ts';
import { asyncProjections, inlineProjections } from './projections/index.ts';
import type { Projection } from './projections/projection.ts';
import { ProjectionRunner } from './projections/projection-runner.ts';

export type Role = 'api' | 'worker' | 'all';

export interface Gateway {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  store: EventStore;
  ctx: AppContext;
  runner: ProjectionRunner;
  http: HttpServer;
  close(): Promise<void>;
}

/**
 * The event store the configuration names, with the projections that must run inline where the store
 * allows it. Under EventStoreDB every projection is async (DESIGN.md).
 */
export async function openEventStore(
  config: Config,
  database: DatabaseHandle,
): Promise<{ store: EventStore; async: readonly Projection[] }> {
  if (config.EVENTSTORE_URL) {
    const { EventStoreDbEventStore } = await import('./events/eventstoredb-event-store.ts');
    return {
      store: new EventStoreDbEventStore(config.EVENTSTORE_URL),
      async: [...inlineProjections, ...asyncProjections],
    };
  }
  return { store: new PostgresEventStore(database.db, inlineProjections), async: asyncProjections };
}

/** Opens the database (migrating it), the event store and the projection runner; builds the HTTP app. */
export async function createGateway(
  config: Config,
  logger: Logger = createLogger(config.LOG_LEVEL),
): Promise<Gateway> {
  const database = openDatabase({
    url: config.DATABASE_URL,
    dataDir: config.CALEBE_DATA_DIR,
    poolSize: config.DATABASE_POOL_SIZE,
  });
  await migrateToLatest(database.db);
  const { store, async } = await openEventStore(config, database);
  const runner = new ProjectionRunner(database.db, store, async, {
    idleMs: config.PROJECTION_POLL_MS,
    onError: (projection, err) => logger.error({ err, projection }, 'projection step failed'),
  });
  const ctx: AppContext = {
    config,
    logger,
    db: database.db,
    store,
    events: createEventRegistry(),
    now: () => new Date(),
    rateLimiter: createMemoryRateLimiter(),
  };
  const http = await buildHttpServer({
    ctx,
    authenticators: { api_key: createApiKeyAuthenticator(ctx), session: createSessionAuthenticator(ctx) },
  });
  return {
    config,
    logger,
    database,
    store,
    ctx,
    runner,
    http,
    async close() {
      await http.close();
      await runner.stop();
      await ctx.rateLimiter.close();
      await store.close();
      await database.close();
    },
  };
}

export async function startGateway(gateway: Gateway, role: Role): Promise<void> {
  if (role !== 'api') gateway.runner.start();
  if (role !== 'worker') {
    await gateway.http.listen({ port: gateway.config.PORT, host: gateway.config.HOST });
  }
}
