/**
 * The document served at /openapi.json, without a database: it comes from route registration alone, so
 * the app is built on a pool that never connects. scripts/lint-openapi.ts lints it (issue 15 item 1).
 */

import type { AppContext } from '../src/commands/context.ts';
import { createEventRegistry } from '../src/commands/index.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { PostgresEventStore } from '../src/events/postgres-event-store.ts';
import { createApiKeyAuthenticator } from '../src/http/api-key-auth.ts';
import { createRateLimiter } from '../src/http/rate-limit.ts';
import { buildHttpServer } from '../src/http/server.ts';
import { createSessionAuthenticator } from '../src/http/session-auth.ts';
import { createLogger } from '../src/logger.ts';
import { defaultProviderRegistry } from '../src/providers/registry.ts';

export async function buildOpenApiDocument(): Promise<unknown> {
  // pg connects lazily: nothing below runs a query, so no server has to listen on this address.
  const config = loadConfig({ DATABASE_URL: 'postgres://openapi@127.0.0.1:9/none', LOG_LEVEL: 'silent' });
  const logger = createLogger('silent');
  const database = openDatabase({ url: config.DATABASE_URL, poolSize: 1 });
  const ctx: AppContext = {
    config,
    logger,
    db: database.db,
    store: new PostgresEventStore(database.db, []),
    events: createEventRegistry(),
    now: () => new Date(),
    rateLimiter: createRateLimiter(config, logger),
    providers: defaultProviderRegistry,
  };
  const app = await buildHttpServer({
    ctx,
    authenticators: { api_key: createApiKeyAuthenticator(ctx), session: createSessionAuthenticator(ctx) },
  });
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
    await ctx.rateLimiter.close();
    await database.close();
  }
}
