import { listWebhookDeliveries } from '../../../contract/operations/webhook-deliveries.ts';
import { bind } from '../../bind.ts';
import { page } from '../../page.ts';
import { requireTenantInTree, tenantInTreeSql } from '../../tenancy.ts';
import { type DeliveryRow, deliveryRows, toDeliveryView } from '../view.ts';

/** Deliveries of the caller's tree, newest first (filters: tenant, endpoint, transaction, status). */
export const listRoute = bind(listWebhookDeliveries, async (call, ctx) => {
  const principal = call.session();
  const q = call.query;
  if (q.tenant_id !== undefined) await requireTenantInTree(ctx.db, principal, q.tenant_id);
  const found = (await deliveryRows(ctx.db)
    .where(tenantInTreeSql(principal, 'd.tenant_id'))
    .$if(q.tenant_id !== undefined, (b) => b.where('d.tenant_id', '=', q.tenant_id ?? ''))
    .$if(q.endpoint_id !== undefined, (b) => b.where('d.endpoint_id', '=', q.endpoint_id ?? ''))
    .$if(q.transaction_id !== undefined, (b) => b.where('d.transaction_id', '=', q.transaction_id ?? ''))
    .$if(q.status !== undefined, (b) => b.where('d.status', '=', q.status ?? 'pending'))
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(q.limit)
    .offset(q.offset)
    .execute()) as DeliveryRow[];
  return page(found.map(toDeliveryView), q);
});
