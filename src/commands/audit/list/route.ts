import { listAuditEntries } from '../../../contract/operations/audit.ts';
import { bind } from '../../bind.ts';
import { page } from '../../page.ts';
import { requireTenantInTree, tenantInTreeSql } from '../../tenancy.ts';

/**
 * `GET /admin/audit` (SPEC 5.7 "Read logs"): newest first, within the caller's tree. A `tenant_id` outside
 * it answers 404 like every other id outside it. No handler: nothing is decided.
 */
export const listRoute = bind(listAuditEntries, async (call, ctx) => {
  const principal = call.session();
  const q = call.query;
  // The spelling of entries written before issue 12 (event types) still filters.
  const action = q.action === undefined ? undefined : ctx.events.auditAction(q.action);
  if (q.tenant_id !== undefined) await requireTenantInTree(ctx.db, principal, q.tenant_id);
  const filtered = ctx.db
    .selectFrom('audit_log')
    .where(tenantInTreeSql(principal, 'audit_log.tenant_id'))
    .$if(action !== undefined, (b) => b.where('action', '=', action ?? ''))
    .$if(q.target_id !== undefined, (b) => b.where('target_id', '=', q.target_id ?? ''))
    .$if(q.tenant_id !== undefined, (b) => b.where('tenant_id', '=', q.tenant_id ?? ''));
  const rows = await filtered
    .selectAll()
    .orderBy('position', 'desc')
    .limit(q.limit)
    .offset(q.offset)
    .execute();
  return page(
    rows.map((r) => ({
      id: r.id,
      occurred_at: new Date(r.occurred_at).toISOString(),
      actor: r.actor,
      action: r.action,
      target_type: r.target_type,
      target_id: r.target_id,
      tenant_id: r.tenant_id,
      request_id: r.request_id,
      before: r.before ?? null,
      after: r.after ?? null,
    })),
    q,
  );
});
