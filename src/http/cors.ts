import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.ts';

/**
 * SPEC 5.8: only the configured browser origins may call the API; any other `Origin` is refused with
 * `403 origin_denied` before authentication, preflights included, so a denied page learns nothing about
 * credentials. Requests without `Origin` (servers, curl) are not affected. CORS is not authentication:
 * an allowed origin still needs a session or key.
 *
 * Issue 23 item 1.3: the gateway's own origin is always allowed, so the pages it serves (the /docs "Test
 * Request" button) can call it: `BASE_URL`'s origin, or without BASE_URL the loopback spellings of the port
 * the request arrived on (`http://localhost:<port>`, `http://127.0.0.1:<port>`, `http://[::1]:<port>`),
 * never another host a DNS name could be pointed from.
 */
export async function installCors(
  app: FastifyInstance,
  origins: readonly string[],
  baseUrl?: string,
): Promise<void> {
  const own = baseUrl === undefined ? undefined : new URL(baseUrl).origin;
  const allowed = new Set(own === undefined ? origins : [...origins, own]);
  const isOwnLoopback = (origin: string, port: number | undefined) =>
    own === undefined &&
    port !== undefined &&
    [`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`].includes(origin);
  // Added before @fastify/cors so a denied origin never reaches its preflight answer.
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (origin === undefined || allowed.has(origin) || isOwnLoopback(origin, request.socket.localPort)) {
      return;
    }
    // The answer depends on Origin; a shared cache must not serve this 403 to another origin.
    reply.header('vary', 'Origin');
    throw new ApiError('origin_denied');
  });
  await app.register(cors, {
    origin: [...allowed],
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    // The panel authenticates with a Bearer session. X-API-Key is left out on purpose: keys must live only
    // on the integrator's server (SPEC 5.1), so a browser cannot send one cross-origin.
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
    exposedHeaders: ['X-Request-ID'],
    // Bearer tokens travel in a header, never in cookies.
    credentials: false,
    maxAge: 600,
  });
}
