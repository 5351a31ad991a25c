import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../logger.ts';
import { metrics } from '../metrics.ts';

/** Prometheus text exposition format (prom-client's registry content type, without the charset). */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4';

export interface MetricsListener {
  /** Where it listens, once the HTTP application is ready; null before. */
  address(): AddressInfo | null;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The `/metrics` listener (METRICS_PORT), or null when metrics are not served. */
    metricsListener: MetricsListener | null;
  }
}

/**
 * SPEC 4.14 asks `/metrics` to be restricted at the network edge; issue 23 item 2.11 found it on the public
 * port. It is served here instead, by a listener of its own on METRICS_HOST:METRICS_PORT (127.0.0.1 by
 * default), which answers `GET /metrics` and 404 to anything else, never the API. It listens when the HTTP
 * application is ready (a busy port stops the start) and closes with it.
 */
export function installMetricsListener(
  app: FastifyInstance,
  options: { port: number | undefined; host: string; logger: Logger },
): void {
  if (options.port === undefined) {
    app.decorate('metricsListener', null);
    return;
  }
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    metrics.metrics().then(
      (body) => response.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE }).end(body),
      (err: unknown) => {
        options.logger.error({ err }, 'metrics collection failed');
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics failed\n');
      },
    );
  });
  const port = options.port;
  app.decorate('metricsListener', {
    address: () => (server.listening ? (server.address() as AddressInfo) : null),
  });
  app.addHook('onReady', async () => {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { address, port: bound } = server.address() as AddressInfo;
    options.logger.info({ address, port: bound }, 'metrics listening');
  });
  app.addHook('onClose', async () => {
    if (!server.listening) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
}
