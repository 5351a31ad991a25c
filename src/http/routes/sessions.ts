import { z } from 'zod';
import type { AppContext } from '../../commands/context.ts';
import { login, logout } from '../../commands/sessions.ts';
import { identityDeps } from '../../commands/users.ts';
import { dataEnvelope, errorEnvelope } from '../../contract/envelopes.ts';
import { loginBody, sessionCreated } from '../../contract/sessions.ts';
import { sessionPrincipal } from '../auth.ts';
import { eventMetadata } from '../request-metadata.ts';
import type { HttpServer } from '../server.ts';

/** Panel login and logout (SPEC 5.6, 5.9, 8). */
export function registerSessionRoutes(app: HttpServer, ctx: AppContext): void {
  const deps = identityDeps(ctx);

  app.post(
    '/admin/sessions',
    {
      // Counted before the body is read, per client address: the connection's own (SPEC 8), or with
      // TRUST_PROXY the one the configured proxies report (issue 23 item 2.2, src/http/server.ts).
      onRequest: async (request) => {
        await ctx.rateLimiter.consume('login', request.ip);
      },
      schema: {
        operationId: 'createSession',
        summary: 'Log in to the panel',
        description:
          'Wrong e-mail or password: 401 invalid_credentials. Limited to 10 attempts per minute per connection address.',
        body: loginBody,
        response: {
          201: dataEnvelope(sessionCreated).meta({ description: 'Logged in; the token is shown only here' }),
          401: errorEnvelope,
          403: errorEnvelope,
        },
      },
    },
    async (request, reply) => {
      // Async projections: a user created or suspended before this request counts at once.
      await ctx.referenceReadsCaughtUp?.();
      const result = await login(deps, request.body, eventMetadata(request));
      return reply.code(201).send({ data: result });
    },
  );

  app.delete(
    '/admin/sessions/current',
    {
      config: { access: { auth: 'session' } },
      schema: {
        operationId: 'deleteCurrentSession',
        summary: 'Log out: revoke the session of this token at once',
        response: { 204: z.null().meta({ description: 'Logged out' }) },
      },
    },
    async (request, reply) => {
      const principal = sessionPrincipal(request);
      await logout(deps, principal.sessionId, eventMetadata(request));
      return reply.code(204).send(null);
    },
  );
}
