import { ApiError } from '../../../aggregates/errors.ts';
import { createUser as createUserOperation } from '../../../contract/operations/users.ts';
import { bind, createdOrReplayed } from '../../bind.ts';
import { identityDeps } from '../identity-deps.ts';
import { loadUser } from '../load-user.ts';
import { createUser } from './handler.ts';

export const createRoute = bind(createUserOperation, async (call, ctx) => {
  const deps = identityDeps(ctx);
  const body = call.body;
  if (body.role !== 'super_admin' && body.tenant_id === null) {
    throw new ApiError('validation_error', 'tenant_admin and viewer users need a tenant_id.', {
      param: 'tenant_id',
    });
  }
  const { user, created } = await createUser(deps, body, call.metadata());
  return createdOrReplayed(created, { data: await loadUser(deps, user.id) });
});
