import { z } from 'zod';
import { pageQuery } from './envelopes.ts';

/**
 * The HTTP contract of the audit log (SPEC 4.14): its query and entries.
 * Shared by the routes and the SDK (issue 15 item 3) so that neither can drift from the other; pure (zod
 * only), because the SDK bundles it.
 */

export const auditQuery = z.strictObject({
  ...pageQuery.shape,
  action: z.string().min(1).max(100).optional().meta({
    description:
      'Action name as documented in docs/audit-actions.md, e.g. settings.payments.updated. An event type (PaymentSettings.Updated) is read as its action name.',
  }),
  target_id: z.string().min(1).max(200).optional(),
  tenant_id: z.string().min(1).max(100).optional(),
});

export const auditEntry = z
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
