import type { AppContext } from '../../commands/context.ts';
import { requireTenantInTree, tenantInTreeSql } from '../../commands/tenancy.ts';
import { auditEntry, auditQuery } from '../../contract/audit.ts';
import { errorResponses, listEnvelope } from '../../contract/envelopes.ts';
import { sessionPrincipal } from '../auth.ts';
import type { HttpServer } from '../server.ts';

/**
 * `GET /admin/audit` (SPEC 5.7 "Read logs": super_admin global; tenant_admin and viewer their own tree).
 * Newest first. Platform-wide records (tenant null, e.g. payment settings) are super_admin only. A
 * `tenant_id` outside the caller's tree answers 404 like every other id outside it.
 */
export function registerAuditRoutes(app: HttpServer, ctx: AppContext): void {
  app.get(
    '/admin/audit',
    {
      config: { access: { auth: 'session', roles: ['super_admin', 'tenant_admin', 'viewer'] } },
      schema: {
        operationId: 'listAuditEntries',
        summary: 'Read the audit log',
        description: 'Configuration, key, session and transaction events; may trail writes by a moment.',
        querystring: auditQuery,
        response: { 200: listEnvelope(auditEntry), ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request) => {
      const principal = sessionPrincipal(request);
      const q = request.query;
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
      return {
        data: rows.map((r) => ({
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
        // SPEC 2.1: count is the size of this page, not the total.
        meta: { limit: q.limit, offset: q.offset, count: rows.length },
      };
    },
  );
}
