import { listWebhookEndpoints } from '../../../contract/operations/webhook-endpoints.ts';
import { bind } from '../../bind.ts';
import { listPage } from '../../page.ts';
import { requireTenantInTree, tenantInTreeSql } from '../../tenancy.ts';
import type { WebhookEndpointView } from '../endpoint.ts';

/** Endpoints of the caller's tree, newest first, from the read model (never the secret). */
export const listRoute = bind(listWebhookEndpoints, async (call, ctx) => {
  const principal = call.session();
  const { tenant_id, mode, limit, offset } = call.query;
  if (tenant_id !== undefined) await requireTenantInTree(ctx.db, principal, tenant_id);
  const query = ctx.db
    .selectFrom('webhook_endpoints')
    .select([
      'id',
      'tenant_id',
      'url',
      'mode',
      'enabled',
      'disabled_reason',
      'previous_secret_sealed',
      'previous_expires_at',
      'created_at',
      'updated_at',
    ])
    .where('deleted_at', 'is', null)
    .where(tenantInTreeSql(principal))
    .$if(tenant_id !== undefined, (q) => q.where('tenant_id', '=', tenant_id ?? ''))
    .$if(mode !== undefined, (q) => q.where('mode', '=', mode ?? 'test'));
  const now = ctx.now().getTime();
  return listPage(
    query,
    { limit, offset },
    'desc',
    (r): WebhookEndpointView => ({
      id: r.id,
      tenant_id: r.tenant_id,
      url: r.url,
      mode: r.mode,
      enabled: r.enabled,
      disabled_reason: r.disabled_reason,
      previous_secret_expires_at:
        r.previous_secret_sealed !== null &&
        r.previous_expires_at !== null &&
        new Date(r.previous_expires_at).getTime() > now
          ? new Date(r.previous_expires_at).toISOString()
          : null,
      created_at: new Date(r.created_at).toISOString(),
      updated_at: new Date(r.updated_at).toISOString(),
    }),
  );
});
