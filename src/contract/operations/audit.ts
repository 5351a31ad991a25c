import { auditEntry, auditQuery } from '../audit.ts';
import { errorResponses, listEnvelope } from '../envelopes.ts';
import { operation } from '../operation.ts';

/**
 * SPEC 5.7 "Read logs": super_admin global; tenant_admin and viewer their own tree. Newest first;
 * platform-wide records (tenant null, e.g. payment settings) are super_admin only.
 */
export const listAuditEntries = operation({
  method: 'GET',
  path: '/admin/audit',
  access: { auth: 'session', roles: ['super_admin', 'tenant_admin', 'viewer'] },
  schema: {
    operationId: 'listAuditEntries',
    summary: 'Read the audit log',
    description: 'Configuration, key, session and transaction events; may trail writes by a moment.',
    querystring: auditQuery,
    response: { 200: listEnvelope(auditEntry), ...errorResponses(401, 403, 404, 422, 429) },
  },
});
