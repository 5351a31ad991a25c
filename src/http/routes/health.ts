import { sql } from 'kysely';
import type { AppContext } from '../../commands/context.ts';
import { healthBody, readyBody } from '../../contract/health.ts';
import type { TagName } from '../../contract/tags.ts';
import { withTimeout } from '../../timeouts.ts';
import { ApiError } from '../errors.ts';
import type { HttpServer } from '../fastify.ts';

const tags: TagName[] = ['Infrastructure'];

export interface HealthOptions {
  /** How long each readiness check may take (SPEC 4.14 "with a timeout"). */
  timeoutMs?: number;
}

/**
 * SPEC 4.14 infrastructure endpoints; none needs a login. `/metrics` is not on this (public) port: it has a
 * listener of its own, METRICS_PORT on loopback by default (src/http/metrics-server.ts, issue 23 item 2.11).
 */
export function registerHealthRoutes(
  app: HttpServer,
  ctx: Pick<AppContext, 'db' | 'rateLimiter'>,
  { timeoutMs = 2_000 }: HealthOptions = {},
): void {
  app.get(
    '/health',
    {
      schema: {
        operationId: 'getHealth',
        summary: 'The process answers (no key)',
        tags,
        response: { 200: healthBody },
      },
      config: { examples: { responses: { 200: { status: 'ok' } } } },
    },
    async () => ({ status: 'ok' as const }),
  );

  const checks = {
    database: async () => {
      await sql`select 1`.execute(ctx.db);
    },
    rate_limiter: () => ctx.rateLimiter.ping(),
  };

  app.get(
    '/ready',
    {
      schema: {
        operationId: 'getReadiness',
        summary: 'The database and the rate-limit store answer (no key)',
        description: `Each check has its own ${timeoutMs} ms timeout. 503 not_ready names the failing checks.`,
        tags,
        response: { 200: readyBody },
      },
      config: {
        examples: { responses: { 200: { status: 'ready', checks: { database: 'ok', rate_limiter: 'ok' } } } },
      },
    },
    async (request) => {
      const names = Object.keys(checks) as (keyof typeof checks)[];
      // In parallel: a hung store must not eat the database's time budget, nor the other way round.
      const results = await Promise.allSettled(
        names.map((name) => withTimeout(checks[name](), timeoutMs, name)),
      );
      const failing = names.filter((_, i) => results[i]?.status === 'rejected');
      if (failing.length > 0) {
        for (const [i, result] of results.entries()) {
          if (result.status === 'rejected') {
            request.log.warn({ check: names[i], err: result.reason }, 'readiness check failed');
          }
        }
        // Only the check names reach the client; the causes stay in the log.
        throw new ApiError('not_ready', `Not ready: ${failing.join(' and ')} not answering.`);
      }
      return { status: 'ready' as const, checks: { database: 'ok' as const, rate_limiter: 'ok' as const } };
    },
  );
}
