import { SCOPES, type Scope } from '../../../aggregates/access.ts';
import { listApiKeys } from '../../../contract/operations/api-keys.ts';
import { bind } from '../../bind.ts';
import { listPage } from '../../page.ts';
import { modeOf, requireTenantInTree, tenantInTreeSql } from '../../tenancy.ts';
import { type ApiKeyView, iso } from '../api-key-view.ts';

/** Keys of the caller's tree, newest first, never the secret (SPEC 5.7). No handler: nothing is decided. */
export const listRoute = bind(listApiKeys, async (call, ctx) => {
  const principal = call.session();
  const { tenant_id, limit, offset } = call.query;
  if (tenant_id !== undefined) await requireTenantInTree(ctx.db, principal, tenant_id);
  const query = ctx.db
    .selectFrom('api_keys')
    .where(tenantInTreeSql(principal))
    .$if(tenant_id !== undefined, (q) => q.where('tenant_id', '=', tenant_id ?? ''))
    .select([
      'id',
      'tenant_id',
      'name',
      'livemode',
      'scopes',
      'access_profile',
      'prefix',
      'created_at',
      'revoked_at',
    ]);
  const known = new Set<string>(SCOPES);
  return listPage(
    query,
    { limit, offset },
    'desc',
    (r): ApiKeyView => ({
      id: r.id,
      tenant_id: r.tenant_id,
      name: r.name,
      mode: modeOf(r.livemode),
      scopes: r.scopes.filter((s): s is Scope => known.has(s)),
      access_profile: r.access_profile,
      prefix: r.prefix,
      status: r.revoked_at ? 'revoked' : 'issued',
      created_at: iso(r.created_at),
      revoked_at: r.revoked_at ? iso(r.revoked_at) : null,
    }),
  );
});
