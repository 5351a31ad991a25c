import { z } from 'zod';
import { dataEnvelope, errorEnvelope } from '../envelopes.ts';
import { userLogin } from '../examples.ts';
import { operation } from '../operation.ts';
import { loginBody, sessionCreated } from '../sessions.ts';

/** The panel's sessions (SPEC 5.6): login creates one, logout revokes the current one. */
const SESSIONS_ROUTE = '/admin/sessions';

/** SPEC 5.6, 5.9, 8: panel login; no credential, limited per client address. */
export const createSession = operation({
  method: 'POST',
  path: SESSIONS_ROUTE,
  access: { clientLimit: 'login' },
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
  examples: { request: userLogin },
});

/** SPEC 5.6: logout revokes the session at once. */
export const deleteCurrentSession = operation({
  method: 'DELETE',
  path: `${SESSIONS_ROUTE}/current`,
  access: { auth: 'session' },
  schema: {
    operationId: 'deleteCurrentSession',
    summary: 'Log out: revoke the session of this token at once',
    response: { 204: z.null().meta({ description: 'Logged out' }) },
  },
});
