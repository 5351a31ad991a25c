import { deleteCurrentSession } from '../../../contract/operations/sessions.ts';
import { Answer, bind } from '../../bind.ts';
import { identityDeps } from '../../users/identity-deps.ts';
import { logout } from './handler.ts';

export const logoutRoute = bind(deleteCurrentSession, async (call, ctx) => {
  await logout(identityDeps(ctx), call.session().sessionId, call.metadata());
  return new Answer(204, null);
});
