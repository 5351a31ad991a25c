import { z } from 'zod';
import { AUTHORIZATION_STATUSES } from '../aggregates/pix-automatic-authorization.ts';
import { chargeCommon } from './charges.ts';
import { pageQuery, treeFilterQuery } from './envelopes.ts';
import { AUTOMATIC_INTERVALS, createSubscriptionBody, subscriptionCustomer } from './subscriptions.ts';

/**
 * The HTTP contract of Pix Automatic authorizations (SPEC 2.6, 3.2, 4.11, 8; docs/decisions.md "Pix Automatic
 * (issue 27): authorizations"): request and view schemas, shared by the routes and the SDK; pure (zod only).
 * Rules that need the server's clock (`first_due_date` at least 2 days ahead in Brasilia time) or routing are
 * the command's.
 */

export const createAuthorizationBody = z.strictObject({
  tenant_id: chargeCommon.tenant_id,
  name: createSubscriptionBody.shape.name,
  description: createSubscriptionBody.shape.description.unwrap().meta({
    description: 'What the payer sees in the bank app: up to 200 characters and 200 bytes.',
  }),
  amount: chargeCommon.amount.meta({
    description: 'The fixed amount of every debit: centavos, 1 to 100000000.',
  }),
  first_due_date: z.iso.date().meta({
    description: 'YYYY-MM-DD, the first expected debit: at least 2 days ahead in Brasilia time.',
  }),
  interval_months: z
    .literal(AUTOMATIC_INTERVALS)
    .meta({ description: 'Months between debits: 1, 3, 6 or 12.' }),
  customer: subscriptionCustomer,
});
export type CreateAuthorizationBody = z.infer<typeof createAuthorizationBody>;

export const simulateAuthorizationBody = z.strictObject({
  status: z.enum(['approved', 'cancelled', 'expired']).meta({
    description: 'approved or expired from pending; cancelled from pending or approved.',
  }),
});

export const authorizationListQuery = pageQuery.extend({ ...treeFilterQuery('authorizations') });

export const authorizationView = z
  .object({
    id: z.string(),
    tenant_id: z.string(),
    livemode: z.boolean(),
    simulated: z.boolean().meta({
      description: 'true: the simulator (every test key); its copy_paste is a marker no bank accepts.',
    }),
    environment: z.enum(['sandbox', 'production']),
    status: z.enum(AUTHORIZATION_STATUSES),
    name: z.string(),
    description: z.string(),
    amount: z.number().int(),
    first_due_date: z.iso.date(),
    interval_months: z.number().int(),
    customer_name: z.string(),
    customer_document: z.string().meta({ description: 'The payer document every debit must repeat.' }),
    copy_paste: z.string().nullable().meta({
      description: 'The Pix code the payer approves in the bank app; null unless the provider created it.',
    }),
    provider_reference: z.string().nullable(),
    approval_deadline: z.iso
      .datetime()
      .meta({ description: 'created_at + 24 hours: the time the payer has to approve.' }),
    approved_at: z.iso.datetime().nullable(),
    provider_error_code: z.string().nullable(),
    provider_error_message: z.string().nullable(),
    provider_http_status: z.number().int().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({
    id: 'PixAutomaticAuthorization',
    description:
      'The payer consent to recurring debits: processing, pending (awaiting the payer: show copy_paste), approved, expired, cancelled, failed (final), unknown (unconfirmed: refresh, do not create another).',
  });
export type AuthorizationView = z.infer<typeof authorizationView>;
