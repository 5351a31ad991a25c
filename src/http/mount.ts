import type { FastifyRequest } from 'fastify';
import { Answer, type Call } from '../commands/bind.ts';
import type { AppContext } from '../commands/context.ts';
import type { MountedOperation } from '../commands/feature.ts';
import { apiKeyPrincipal, idempotencyKeyOf, sessionPrincipal } from './auth.ts';
import { compiledSerializer, compiledSuccessSerializer } from './compiled-serializer.ts';
import type { HttpServer } from './fastify.ts';
import { eventMetadata } from './request-metadata.ts';

const SERIALIZERS = { compiled: compiledSerializer, 'compiled-success': compiledSuccessSerializer } as const;

/** What a handler may know of a request (src/commands/bind.ts): its parsed input and its caller. */
function callOf(request: FastifyRequest): Call {
  return {
    params: request.params as undefined,
    query: request.query as undefined,
    body: request.body as undefined,
    requestId: request.id,
    principal: request.principal,
    apiKey: () => apiKeyPrincipal(request),
    session: () => sessionPrincipal(request),
    idempotencyKey: () => idempotencyKeyOf(request),
    header: (name) => {
      const value = request.headers[name];
      return typeof value === 'string' ? value : undefined;
    },
    metadata: (actor) => eventMetadata(request, actor),
  };
}

/**
 * Mounts bound operations (DESIGN.md "Feature modules"): the contract's schema, access, tag and examples
 * become the route's, and the handler's answer its reply (a body is 200; an `Answer` sets status and
 * headers).
 * Authentication, limits, strict JSON and the SPEC 7 error table are the server's hooks, as for every route.
 */
export function mountOperations(
  app: HttpServer,
  operations: readonly MountedOperation[],
  ctx: AppContext,
): void {
  for (const { operation, handle, tag } of operations) {
    app.route({
      method: operation.method,
      url: operation.path,
      config: { access: operation.access, examples: operation.examples },
      schema: { ...operation.schema, tags: [tag] },
      ...(operation.serializer ? { serializerCompiler: SERIALIZERS[operation.serializer] } : {}),
      handler: async (request, reply) => {
        const out = await handle(callOf(request), ctx);
        if (!(out instanceof Answer)) return out;
        for (const [name, value] of Object.entries(out.headers)) reply.header(name, value);
        return reply.code(out.status).send(out.body);
      },
    });
  }
}
