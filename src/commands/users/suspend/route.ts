import { suspendUser as suspendUserOperation } from '../../../contract/operations/users.ts';
import { bind } from '../../bind.ts';
import { identityDeps } from '../identity-deps.ts';
import { loadUser } from '../load-user.ts';
import { suspendUser } from './handler.ts';

export const suspendRoute = bind(suspendUserOperation, async (call, ctx) => {
  const deps = identityDeps(ctx);
  await suspendUser(deps, call.params.id, call.metadata());
  return { data: await loadUser(deps, call.params.id) };
});
