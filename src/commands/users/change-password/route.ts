import { ApiError } from '../../../aggregates/errors.ts';
import { setUserPassword } from '../../../contract/operations/users.ts';
import { Answer, bind } from '../../bind.ts';
import { isInTree } from '../../tenancy.ts';
import { identityDeps } from '../identity-deps.ts';
import { changePassword } from './handler.ts';

/** Who may change whose password (SPEC 5.7; issue 23 item 2.4), then the change. */
export const changePasswordRoute = bind(setUserPassword, async (call, ctx) => {
  const principal = call.session();
  const userId = call.params.id;
  const self = principal.userId === userId;
  if (!self && principal.role !== 'super_admin') {
    const target = await ctx.db
      .selectFrom('users')
      .select('tenant_id')
      .where('id', '=', userId)
      .executeTakeFirst();
    const visible = target?.tenant_id ? await isInTree(ctx.db, principal, target.tenant_id) : false;
    throw new ApiError(visible ? 'forbidden' : 'not_found');
  }
  const { password, current_password } = call.body;
  // Issue 23 item 2.4 (OWASP ASVS 4.0 V2.1.6): a session alone must not be enough to take the account.
  if (self && current_password === undefined) {
    throw new ApiError(
      'validation_error',
      'Changing your own password needs your current password in current_password.',
      { param: 'current_password' },
    );
  }
  if (!self && current_password !== undefined) {
    throw new ApiError(
      'validation_error',
      'current_password is only for changing your own password; leave it out to reset another user’s.',
      { param: 'current_password' },
    );
  }
  if (self) await ctx.rateLimiter.consume('password', principal.userId);
  await changePassword(identityDeps(ctx), userId, password, call.metadata(), current_password);
  return new Answer(204, null);
});
