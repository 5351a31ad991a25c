import type { Config } from './config.ts';
import { type DatabaseHandle, openDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import type { EventStore } from './events/event-store.ts';
import { PostgresEventStore } from './events/postgres-event-store.ts';
import { buildHttpServer, type HttpServer } from './http/server.ts';
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
  const http = buildHttpServer({ logger });
  return {
    config,
    logger,
    database,
    store,
    runner,
    http,
    async close() {
      await http.close();
      await runner.stop();
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
