import { z } from 'zod';
import { SCOPES } from '../aggregates/access.ts';
import { pageQuery, queryBoolean } from './envelopes.ts';

/**
 * The HTTP contract of subtenants (SPEC 4.13, 5.3): the view and the request schemas of their routes.
 * Shared by the routes and the SDK (issue 15 item 3) so that neither can drift from the other; pure (zod
 * only), because the SDK bundles it.
 */

export const subtenantView = z
  .object({
    id: z.string(),
    name: z.string(),
    type_id: z.string(),
    parent_id: z.string(),
    status: z.enum(['active', 'suspended']),
    created_at: z.iso.datetime(),
  })
  .meta({
    id: 'Subtenant',
    description:
      "A tenant below the key's tenant. `parent_id` and `type_id` are fixed at creation; the same for test and production keys.",
  });

export const createSubtenantBody = z.strictObject({
  name: z.string().meta({ description: 'Text, 2 to 120 bytes of UTF-8 after trim; stored trimmed.' }),
  type_id: z.string().min(1).max(64).optional().meta({
    description:
      "The tenant type of the new subtenant, one of the types registered in the panel; default: the type of the key's tenant.",
  }),
  // Declared so that it answers 422 tenant_from_api_key rather than 400 invalid_json (unknown field).
  tenant_id: z.unknown().optional().meta({ description: 'Never send: 422 tenant_from_api_key.' }),
});

export const subtenantListQuery = pageQuery.extend({
  status: z.enum(['active', 'suspended']).optional(),
  include_descendants: queryBoolean
    .default(false)
    .meta({ description: 'false (default): direct children of the key tenant; true: every descendant.' }),
});

export const createSubtenantKeyBody = z.strictObject({
  name: z.string().meta({ description: 'Text, 2 to 120 bytes of UTF-8 after trim; stored trimmed.' }),
  scopes: z
    .array(z.enum(SCOPES))
    .min(1)
    .meta({ description: 'Explicit, without repeats; each one must be a scope of the calling key.' }),
});

export const subtenantKeyParams = z.object({ id: z.string().min(1).max(64) });
