import type { FastifyInstance } from 'fastify';
import { Counter, Histogram } from 'prom-client';
import { metrics } from '../metrics.ts';

/** SPEC 4.14. Labels use the route template, never the raw URL, so the number of series stays bounded. */
export const httpRequestsTotal = new Counter({
  name: 'calebe_http_requests_total',
  help: 'HTTP requests answered, by method, route template and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [metrics],
});

export const httpErrorsTotal = new Counter({
  name: 'calebe_http_errors_total',
  help: 'HTTP requests answered with a status of 400 or more, by method, route template and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [metrics],
});

export const httpRequestDuration = new Histogram({
  name: 'calebe_http_request_duration_seconds',
  help: 'Time from receiving a request to finishing its response, by method and route template',
  labelNames: ['method', 'route'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metrics],
});

/** Paths no route matched share one label value: clients choose them, so they would grow without bound. */
export const UNMATCHED_ROUTE = 'unmatched';

export function registerHttpMetrics(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    const labels = { method: request.method, route: request.routeOptions.url ?? UNMATCHED_ROUTE };
    const status = String(reply.statusCode);
    httpRequestsTotal.inc({ ...labels, status });
    if (reply.statusCode >= 400) httpErrorsTotal.inc({ ...labels, status });
    httpRequestDuration.observe(labels, reply.elapsedTime / 1000);
  });
}
