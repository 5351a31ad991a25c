import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { newId } from '../ids.ts';
import type { Logger } from '../logger.ts';
import { clientErrorHandler } from './client-errors.ts';
import { sendError } from './error-handler.ts';
import { ApiError } from './errors.ts';
import { BODY_LIMIT } from './json-body.ts';

/** The proxies fastify may read X-Forwarded-For from (TRUST_PROXY in src/config.ts); false trusts none. */
export type TrustProxy = false | readonly string[];

export function createFastify(logger: Logger, trustProxy: TrustProxy = false) {
  const loggerInstance: FastifyBaseLogger = logger;
  return Fastify({
    loggerInstance,
    bodyLimit: BODY_LIMIT,
    // The id is always ours: a client-sent X-Request-ID is never trusted into logs and audit records.
    genReqId: () => newId('req'),
    requestIdHeader: false,
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    // `request.ip`, the address the login and failed-authentication limits count: the connection's own
    // (SPEC 8), or with TRUST_PROXY the client's as the configured proxies report it (issue 23 item 2.2).
    trustProxy: trustProxy === false ? false : [...trustProxy],
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
