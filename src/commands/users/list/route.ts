import { listUsers } from '../../../contract/operations/users.ts';
import { bind } from '../../bind.ts';
import { listPage } from '../../page.ts';
import { tenantInTreeSql } from '../../tenancy.ts';

/** All users for a super_admin, users of the caller's tree otherwise (SPEC 5.7). No handler: nothing is decided. */
export const listRoute = bind(listUsers, async (call, ctx) => {
  const { limit, offset } = call.query;
  const query = ctx.db
    .selectFrom('users')
    .select(['id', 'email', 'role', 'tenant_id', 'status'])
    .where(tenantInTreeSql(call.session()));
  return listPage(query, { limit, offset }, 'asc');
});
