import { z } from 'zod';
import { pageQuery, queryBoolean, treeFilterQuery } from './envelopes.ts';
import { utf8Text } from './text.ts';

/**
 * The HTTP contract of cost centers (SPEC 4.12): the view and the request schemas of their routes.
 * Shared by the routes and the SDK (issue 15 item 3) so that neither can drift from the other; pure (zod
 * only), because the SDK bundles it.
 */

export const costCenterView = z
  .object({
    id: z.string(),
    tenant_id: z.string(),
    name: z.string(),
    active: z.boolean(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({
    id: 'CostCenter',
    description:
      'A label a tenant classifies its charges with; it belongs to the tenant of the key and is the same for its test and production keys.',
  });

const name = utf8Text(1, 100).meta({
  description: 'Text, 1 to 100 bytes of UTF-8 after trim, no control characters; stored trimmed; not unique.',
});

export const createCostCenterBody = z.strictObject({ name });
export const updateCostCenterBody = z
  .strictObject({
    name: name.optional(),
    active: z.boolean().optional().meta({ description: 'false deactivates, true reactivates.' }),
  })
  .refine((b) => b.name !== undefined || b.active !== undefined, {
    message: 'send name and/or active',
  });

export const costCenterListQuery = pageQuery.extend({
  active: queryBoolean.optional(),
  ...treeFilterQuery('centers'),
});
