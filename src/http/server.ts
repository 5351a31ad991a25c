import Fastify from 'fastify';
import type { Logger } from '../logger.ts';

export interface HttpDeps {
  logger: Logger;
}

/** The HTTP application. Later issues register their routes here as plugins. */
export function buildHttpServer(deps: HttpDeps) {
  const app = Fastify({ loggerInstance: deps.logger });
  app.get('/health', async () => ({ status: 'ok' }));
  return app;
}

export type HttpServer = ReturnType<typeof buildHttpServer>;
