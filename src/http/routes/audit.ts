import { z } from 'zod';
import { auditAction } from '../../projections/audit-actions.ts';
import { requireTenantInTree, tenantInTreeSql } from '../admin-scope.ts';
import { sessionPrincipal } from '../auth.ts';
import type { AppContext } from '../context.ts';
import { errorResponses, listEnvelope, pageQuery } from '../schemas.ts';
import type { HttpServer } from '../server.ts';

const query = z.strictObject({
  ...pageQuery.shape,
  action: z.string().min(1).max(100).optional().meta({
    description:
      'Action name as documented in docs/audit-actions.md, e.g. settings.payments.updated (SPEC 4.14). An event type (PaymentSettings.Updated) is read as its action name.',
  }),
  target_id: z.string().min(1).max(200).optional(),
  tenant_id: z.string().min(1).max(100).optional(),
});

const auditEntry = z
  .object({
    id: z.string().meta({ description: 'The id of the event recorded.' }),
    occurred_at: z.iso.datetime(),
    actor: z.string().meta({ description: '`user:<id>`, `api_key:<id>` or `system:<job>`' }),
    action: z.string().meta({
      description:
        'Stable dotted lower-case action name (docs/audit-actions.md), e.g. settings.payments.updated.',
    }),
    target_type: z.string(),
    target_id: z.string(),
    tenant_id: z.string().nullable(),
    request_id: z.string().nullable(),
    before: z.unknown().meta({ description: 'Previous values, where relevant (settings); null otherwise.' }),
    after: z.unknown().meta({ description: 'New values; never secrets.' }),
  })
  .meta({ id: 'AuditEntry' });

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
        querystring: query,
        response: { 200: listEnvelope(auditEntry), ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request) => {
      const principal = sessionPrincipal(request);
      const q = request.query;
      // The spelling of entries written before issue 12 (event types) still filters.
      const action = q.action === undefined ? undefined : auditAction(q.action);
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
