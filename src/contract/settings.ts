import { z } from 'zod';

/**
 * The HTTP contract of the production payments control (SPEC 2.7, 4.14).
 * Shared by the routes and the SDK (issue 15 item 3) so that neither can drift from the other; pure (zod
 * only), because the SDK bundles it.
 */

/** SPEC 4.14: exactly this field; omission, null or extra fields are refused. */
export const updatePaymentSettingsBody = z.strictObject({ allow_live_payments: z.boolean() });

export const paymentSettings = z
  .object({
    allow_live_payments: z
      .boolean()
      .meta({ description: 'The effective value: saved, else the environment default.' }),
    source: z.enum(['database', 'environment']),
    environment_default: z.boolean().meta({ description: 'ALLOW_LIVE_PAYMENTS as the server read it.' }),
    allow_unscoped_live_payments: z.boolean(),
    has_live_payment_scope: z
      .boolean()
      .meta({ description: 'Whether a valid scope is configured; never its content.' }),
    issuance_authorized: z.boolean(),
    updated_at: z.iso.datetime().nullable(),
    updated_by: z
      .string()
      .nullable()
      .meta({ description: 'Administrator id, or null while nothing is saved.' }),
  })
  .meta({ id: 'PaymentSettings' });
