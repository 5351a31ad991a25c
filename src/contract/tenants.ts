import { z } from 'zod';
import { pageQuery } from './envelopes.ts';

/**
 * The HTTP contract of tenant types and tenants (SPEC 1, 2.7): the views and the request schemas.
 * Shared by the routes and the SDK (issue 15 item 3) so that neither can drift from the other; pure (zod
 * only), because the SDK bundles it.
 */

export const tenantTypeDto = z
  .object({ id: z.string(), name: z.string(), allows_children: z.boolean() })
  .meta({ id: 'TenantType' });

export const tenantDto = z
  .object({
    id: z.string(),
    name: z.string(),
    type_id: z.string(),
    parent_id: z.string().nullable(),
    status: z.enum(['active', 'suspended']),
  })
  .meta({ id: 'Tenant', description: 'parent_id and type_id are fixed at creation.' });

export const tenantTypeBody = z.strictObject({ name: z.string(), allows_children: z.boolean() });
export const tenantBody = z.strictObject({
  name: z.string(),
  type_id: z.string().min(1).max(64),
  parent_id: z.string().min(1).max(64).nullable().optional(),
});

export const tenantListQuery = pageQuery.extend({ status: z.enum(['active', 'suspended']).optional() });
