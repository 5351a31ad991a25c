import { dataEnvelope, errorResponses } from '../envelopes.ts';
import { operation } from '../operation.ts';
import { adminSummary, summaryQuery } from '../summary.ts';

/** SPEC 4.14; scope as SPEC 5.7 "Read transactions". */
export const getAdminSummary = operation({
  method: 'GET',
  path: '/admin/summary',
  access: { auth: 'session', roles: ['super_admin', 'tenant_admin', 'viewer'] },
  schema: {
    operationId: 'getAdminSummary',
    summary: 'Summarize charges of the authorized tree',
    description:
      'Totals, counts per status, success rate and a daily series (America/Sao_Paulo) over the charges created in the last `days` x 24h; tenant counts from the current registry. May trail writes by a moment.',
    querystring: summaryQuery,
    response: { 200: dataEnvelope(adminSummary), ...errorResponses(401, 403, 404, 422, 429) },
  },
});
