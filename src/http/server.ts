import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { AppContext } from '../commands/context.ts';
import { routes } from '../commands/index.ts';
import {
  type ApiKeyPrincipal,
  type Authenticator,
  checkAccess,
  idempotencyKeyOf,
  type SessionPrincipal,
} from './auth.ts';
import { installCacheControl } from './cache-control.ts';
import { installCors } from './cors.ts';
import { installErrorHandling } from './error-handler.ts';
import { ApiError } from './errors.ts';
import { createFastify, type HttpServer } from './fastify.ts';
import { registerHttpMetrics } from './http-metrics.ts';
import type { InFlight } from './in-flight.ts';
import { useStrictJsonBodies } from './json-body.ts';
import { installMetricsListener } from './metrics-server.ts';
import { mountOperations } from './mount.ts';
import { refuseNulCharacters } from './nul-guard.ts';
import { describeRoutes, registerOpenApi } from './openapi.ts';
import { registerChargePageRoutes } from './routes/charge-page.ts';
import { registerCheckoutPageRoutes } from './routes/checkout-page.ts';
import { registerHealthRoutes } from './routes/health.ts';

export interface HttpDeps {
  ctx: AppContext;
  authenticators: { api_key: Authenticator<ApiKeyPrincipal>; session: Authenticator<SessionPrincipal> };
  /** Counts every route handler until it settles, so shutdown can wait for them (src/http/in-flight.ts). */
  inFlight?: InFlight;
}

/**
 * The HTTP application. Per request: X-Request-ID, the browser origin (SPEC 5.8), then (before the body is
 * parsed) the route's credential, the per-actor rate limit, scopes or roles, and the Idempotency-Key header;
 * then strict JSON and the zod schema; every failure leaves as the SPEC 7 envelope.
 */
export async function buildHttpServer({ ctx, authenticators, inFlight }: HttpDeps): Promise<HttpServer> {
  const app = createFastify(ctx.logger, ctx.config.TRUST_PROXY);
  if (inFlight) {
    app.addHook('onRoute', (route) => {
      const handler = route.handler;
      route.handler = function tracked(request, reply) {
        const result = handler.call(this, request, reply);
        return result instanceof Promise ? inFlight.track(result) : result;
      };
    });
  }
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  useStrictJsonBodies(app);
  installErrorHandling(app);
  registerHttpMetrics(app);
  installMetricsListener(app, {
    port: ctx.config.METRICS_PORT,
    host: ctx.config.METRICS_HOST,
    logger: ctx.logger,
  });
  app.decorateRequest('principal', null);
  installCacheControl(app);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // Before authentication: a denied origin is refused without looking at its credentials.
  await installCors(app, ctx.config.CORS_ORIGINS, ctx.config.BASE_URL);
  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config.access;
    // SPEC 8 login limit: every attempt counts against its address, before the body is read.
    if (access?.clientLimit) await ctx.rateLimiter.consume(access.clientLimit, request.ip);
    if (!access?.auth) return;
    // Issue 23 item 2.2: the credential is looked up first, and a valid one is always served, subject only
    // to its actor's own limit; failures from other clients sharing the address never refuse it. Only a
    // failing attempt counts against the client address (issue 12, OWASP API4), and past
    // AUTH_FAILURES_PER_MINUTE that address's failing attempts get 429 instead of 401.
    let principal: ApiKeyPrincipal | SessionPrincipal;
    try {
      principal = await authenticators[access.auth](request);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'unauthorized') {
        await ctx.rateLimiter.consume('auth_failure', request.ip);
      }
      throw error;
    }
    request.principal = principal;
    await ctx.rateLimiter.admit(principal.actor);
    checkAccess(principal, access);
    if (access.idempotencyKey === true) idempotencyKeyOf(request);
  });
  // After the body is parsed, before any schema or handler: no NUL reaches PostgreSQL (issue 12).
  app.addHook('preValidation', async (request) => refuseNulCharacters(request));

  describeRoutes(app);
  // Without BASE_URL the document names no host: it describes the instance that serves it.
  await registerOpenApi(app, ctx.config.BASE_URL ?? '/');
  registerHealthRoutes(app, ctx);
  // Every feature's operations, in FEATURES order (src/commands/index.ts), between the raw platform routes.
  mountOperations(app, routes, ctx);
  registerChargePageRoutes(app, ctx);
  registerCheckoutPageRoutes(app, ctx);
  return app;
}

export type { HttpServer, TrustProxy } from './fastify.ts';
