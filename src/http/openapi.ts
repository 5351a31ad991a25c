import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { errorEnvelope } from './schemas.ts';

/** SPEC 9: OpenAPI 3.1, info.version 0.4.0. */
export const API_VERSION = '0.4.0';

/** Errors any authenticated route can answer besides its own (SPEC 7). */
const COMMON_ERRORS = [400, 401, 403, 413, 422, 429, 500, 503];
/** Routes without a credential; 403 is `origin_denied` (SPEC 5.8), which any route can answer. */
const PUBLIC_ERRORS = [400, 403, 413, 422, 429, 500, 503];

/**
 * Gives every documented route its security scheme and the error envelope for the common error statuses,
 * so the document describes every response the code can produce. Must run before routes are added.
 */
export function describeRoutes(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.schema || route.schema.hide) return;
    const access = route.config?.access;
    const response = { ...((route.schema.response as Record<number, unknown> | undefined) ?? {}) };
    const statuses = access?.auth ? COMMON_ERRORS : PUBLIC_ERRORS;
    for (const status of statuses) response[status] ??= errorEnvelope;
    route.schema = {
      ...route.schema,
      response,
      ...(access?.auth ? { security: [{ [access.auth === 'api_key' ? 'ApiKey' : 'Session']: [] }] } : {}),
    };
  });
}

export async function registerOpenApi(app: FastifyInstance, baseUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Calebe payment gateway',
        version: API_VERSION,
        description:
          'Public API under /v1 (X-API-Key) and panel API under /admin (Bearer session). Amounts are integer centavos.',
      },
      servers: [{ url: baseUrl }],
      components: {
        securitySchemes: {
          ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          Session: { type: 'http', scheme: 'bearer', description: 'Session token from POST /admin/sessions' },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
