import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { registerTransactionRoutes } from '../commands/transactions/index.ts';
import { newId } from '../ids.ts';
import type { Logger } from '../logger.ts';
import {
  type ApiKeyPrincipal,
  type Authenticator,
  checkAccess,
  idempotencyKeyOf,
  type SessionPrincipal,
} from './auth.ts';
import { clientErrorHandler } from './client-errors.ts';
import type { AppContext } from './context.ts';
import { installCors } from './cors.ts';
import { installErrorHandling, sendError } from './error-handler.ts';
import { ApiError } from './errors.ts';
import { registerHttpMetrics } from './http-metrics.ts';
import type { InFlight } from './in-flight.ts';
import { BODY_LIMIT, useStrictJsonBodies } from './json-body.ts';
import { refuseNulCharacters } from './nul-guard.ts';
import { describeRoutes, registerOpenApi } from './openapi.ts';
import { registerApiKeyRoutes } from './routes/api-keys.ts';
import { registerAuditRoutes } from './routes/audit.ts';
import { registerChargePageRoutes } from './routes/charge-page.ts';
import { registerCostCenterRoutes } from './routes/cost-centers.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerProviderRoutes } from './routes/providers.ts';
import { registerRuleRoutes } from './routes/rules.ts';
import { registerSessionRoutes } from './routes/sessions.ts';
import { registerSettingsRoutes } from './routes/settings.ts';
import { registerSummaryRoutes } from './routes/summary.ts';
import { registerTenantRoutes } from './routes/tenants.ts';
import { registerUserRoutes } from './routes/users.ts';
import { registerWebhookDeliveryRoutes } from './routes/webhook-deliveries.ts';
import { registerWebhookEndpointRoutes } from './routes/webhook-endpoints.ts';

export interface HttpDeps {
  ctx: AppContext;
  authenticators: { api_key: Authenticator<ApiKeyPrincipal>; session: Authenticator<SessionPrincipal> };
  /** Counts every route handler until it settles, so shutdown can wait for them (src/http/in-flight.ts). */
  inFlight?: InFlight;
}

export function createFastify(logger: Logger) {
  const loggerInstance: FastifyBaseLogger = logger;
  return Fastify({
    loggerInstance,
    bodyLimit: BODY_LIMIT,
    // The id is always ours: a client-sent X-Request-ID is never trusted into logs and audit records.
    genReqId: () => newId('req'),
    requestIdHeader: false,
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    // Login is limited per direct connection address; X-Forwarded-For is never trusted (SPEC 8).
    trustProxy: false,
    // A URL the router cannot read (bad percent-encoding, a path parameter over its length) names no
    // resource: the SPEC 7 `404 not_found` envelope, with the request id, instead of fastify's own body.
    frameworkErrors: (_error, request, reply) => {
      reply.header('x-request-id', request.id);
      return sendError(request, reply, new ApiError('not_found', 'No such resource.'));
    },
    // What the HTTP parser refuses before fastify sees a request still gets the envelope (issue 12).
    clientErrorHandler: clientErrorHandler(loggerInstance),
  }).withTypeProvider<ZodTypeProvider>();
}

export type HttpServer = ReturnType<typeof createFastify>;

/**
 * The HTTP application. Per request: X-Request-ID, the browser origin (SPEC 5.8), then (before the body is
 * parsed) the route's credential, the per-actor rate limit, scopes or roles, and the Idempotency-Key header;
 * then strict JSON and the zod schema; every failure leaves as the SPEC 7 envelope.
 */
export async function buildHttpServer({ ctx, authenticators, inFlight }: HttpDeps): Promise<HttpServer> {
  const app = createFastify(ctx.logger);
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
  app.decorateRequest('principal', null);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // Before authentication: a denied origin is refused without looking at its credentials.
  await installCors(app, ctx.config.CORS_ORIGINS);
  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config.access;
    if (!access?.auth) return;
    // Failed authentication is limited per direct connection address (issue 12, OWASP API4): a blocked
    // address is refused whatever its credential. X-Forwarded-For is never trusted (SPEC 8). The block is
    // read with the actor's count after the lookup: one store round trip per request (issue 14).
    const address = request.socket.remoteAddress ?? 'unknown';
    let principal: ApiKeyPrincipal | SessionPrincipal;
    try {
      principal = await authenticators[access.auth](request);
    } catch (error) {
      await ctx.rateLimiter.check('auth_failure', address);
      if (error instanceof ApiError && error.code === 'unauthorized') {
        await ctx.rateLimiter.consume('auth_failure', address).catch((limited: unknown) => {
          // This failure is answered as what it is (401); the next request from the address gets the 429.
          if (!(limited instanceof ApiError && limited.code === 'rate_limit_exceeded')) throw limited;
        });
      }
      throw error;
    }
    request.principal = principal;
    await ctx.rateLimiter.admit(address, principal.actor);
    checkAccess(principal, access);
    if (access.idempotencyKey === true) idempotencyKeyOf(request);
  });
  // After the body is parsed, before any schema or handler: no NUL reaches PostgreSQL (issue 12).
  app.addHook('preValidation', async (request) => refuseNulCharacters(request));

  describeRoutes(app);
  // Without BASE_URL the document names no host: it describes the instance that serves it.
  await registerOpenApi(app, ctx.config.BASE_URL ?? '/');
  registerHealthRoutes(app, ctx);
  registerSessionRoutes(app, ctx);
  registerProviderRoutes(app, ctx);
  registerRuleRoutes(app, ctx);
  registerSettingsRoutes(app, ctx);
  registerAuditRoutes(app, ctx);
  registerSummaryRoutes(app, ctx);
  registerApiKeyRoutes(app, ctx);
  registerTenantRoutes(app, ctx);
  registerUserRoutes(app, ctx);
  registerCostCenterRoutes(app, ctx);
  registerWebhookEndpointRoutes(app, ctx);
  registerWebhookDeliveryRoutes(app, ctx);
  // The transaction use cases register their own routes (src/commands/transactions/index.ts).
  registerTransactionRoutes(app, ctx);
  registerChargePageRoutes(app, ctx);
  return app;
}
