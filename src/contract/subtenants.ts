import { z } from 'zod';
import { SCOPES } from '../aggregates/access.ts';
import { pageQuery, queryBoolean } from './envelopes.ts';
import { createSubaccountBody, SUBACCOUNT_STATUSES } from './subaccounts.ts';

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

/**
 * The company data a marketplace provider needs to open the subtenant's subaccount: the panel's subaccount
 * body without `provider_id` (the server picks the provider: clients never choose it) and `tenant_id` (the
 * new subtenant).
 */
export const subtenantSubaccountBody = createSubaccountBody
  .omit({ provider_id: true, tenant_id: true })
  .meta({
    description:
      "Optional. The company data for the subtenant's subaccount at the marketplace provider its routing reaches. The bank account is sent to the provider only: never stored or returned.",
  });
export type SubtenantSubaccountBody = z.infer<typeof subtenantSubaccountBody>;

/** Why no subaccount was requested (`status: not_attempted`). */
export const SUBACCOUNT_NOT_ATTEMPTED = ['no_marketplace_route', 'marketplace_unavailable'] as const;

export const subtenantSubaccount = z
  .object({
    id: z.string().nullable().meta({ description: 'The subaccount record; null when it was not attempted.' }),
    status: z.enum([...SUBACCOUNT_STATUSES, 'not_attempted']).meta({
      description:
        '`active`: created at the provider. `failed`: refused by the provider (the error fields say why). `creating` or `unknown`: the outcome is not known yet; an administrator resolves it. `disabled`: turned off since. `not_attempted`: nothing was sent to a provider (`last_error_code` `no_marketplace_route`: no routing rule of the subtenant for boleto, Pix or card reaches a marketplace provider; `marketplace_unavailable`: that provider cannot manage subaccounts now).',
    }),
    last_error_code: z.string().nullable(),
    last_provider_error_code: z
      .string()
      .nullable()
      .meta({ description: "The provider's code, 1 to 10 digits." }),
    last_error_message: z.string().nullable().meta({ description: 'A fixed sanitized message.' }),
  })
  .meta({
    id: 'SubtenantSubaccount',
    description:
      "The outcome of the subaccount conversion attempted at the subtenant's registration. Tokens and bank data are never returned.",
  });

/** The answer of a registration: the subtenant and the outcome of its subaccount conversion. */
export const createdSubtenantView = subtenantView
  .extend({
    subaccount: subtenantSubaccount.nullable().meta({
      description: 'null when the request sent no `subaccount`; on a replay, the subaccount as it is now.',
    }),
  })
  .meta({
    id: 'CreatedSubtenant',
    description:
      'A subtenant just registered (or replayed), with the outcome of its subaccount conversion. A refused or uncertain conversion never fails the registration.',
  });

export const createSubtenantBody = z.strictObject({
  name: z.string().meta({ description: 'Text, 2 to 120 bytes of UTF-8 after trim; stored trimmed.' }),
  type_id: z.string().min(1).max(64).optional().meta({
    description:
      "The tenant type of the new subtenant, one of the types registered in the panel; default: the type of the key's tenant.",
  }),
  subaccount: subtenantSubaccountBody.optional(),
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
