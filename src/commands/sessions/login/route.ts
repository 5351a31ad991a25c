import { createSession } from '../../../contract/operations/sessions.ts';
import { Answer, bind } from '../../bind.ts';
import { identityDeps } from '../../users/identity-deps.ts';
import { login } from './handler.ts';

/**
 * Panel login (SPEC 5.6, 5.9): no credential; the token is shown only in this answer. The attempt was
 * counted against the client's address before the body was read (the operation's `clientLimit`, SPEC 8).
 */
export const loginRoute = bind(createSession, async (call, ctx) => {
  // Async projections: a user created or suspended before this request counts at once.
  await ctx.referenceReadsCaughtUp?.();
  const result = await login(identityDeps(ctx), call.body, call.metadata());
  return new Answer(201, { data: result });
});
