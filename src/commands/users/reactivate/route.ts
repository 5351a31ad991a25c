import { reactivateUser as reactivateUserOperation } from '../../../contract/operations/users.ts';
import { bind } from '../../bind.ts';
import { identityDeps } from '../identity-deps.ts';
import { loadUser } from '../load-user.ts';
import { reactivateUser } from './handler.ts';

export const reactivateRoute = bind(reactivateUserOperation, async (call, ctx) => {
  const deps = identityDeps(ctx);
  await reactivateUser(deps, call.params.id, call.metadata());
  return { data: await loadUser(deps, call.params.id) };
});
