import { z } from 'zod';
import { TRANSACTION_STATUSES, type TransactionStatus } from '../aggregates/transaction.ts';
import { queryBoolean } from './envelopes.ts';

/**
 * The HTTP contract of the panel summary (SPEC 4.14): its query and answer.
 * Shared by the routes and the SDK (issue 15 item 3) so that neither can drift from the other; pure (zod
 * only), because the SDK bundles it.
 */

export const summaryQuery = z.strictObject({
  days: z.coerce
    .number()
    .int()
    .min(1)
    .max(365)
    .default(30)
    .meta({ description: 'Window length in days (1 to 365): charges created at or after now - days x 24h.' }),
  tenant_id: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: 'Root of the subtree to summarize; must lie in the caller’s tree (else 404).' }),
  livemode: queryBoolean
    .default(true)
    .meta({ description: '`true` (default): production charges only; `false`: test-mode charges only.' }),
});

export const money = z.number().int().meta({ description: 'Centavos.' });
export const dayEntry = z.object({
  date: z.iso.date().meta({ description: 'Creation day in America/Sao_Paulo.' }),
  created_count: z.number().int(),
  created_amount: money,
  paid_count: z.number().int(),
  paid_amount: money,
});

export const adminSummary = z
  .object({
    days: z.number().int(),
    livemode: z.boolean(),
    tenant_id: z
      .string()
      .nullable()
      .meta({ description: 'The subtree root asked for; null for the whole scope.' }),
    window: z.object({
      from: z.iso.datetime().meta({ description: 'now - days x 24h (inclusive).' }),
      to: z.iso.datetime().meta({ description: 'now.' }),
      time_zone: z.literal('America/Sao_Paulo'),
    }),
    totals: z.object({
      created_count: z.number().int(),
      created_amount: money,
      paid_count: z
        .number()
        .int()
        .meta({ description: 'Charges created in the window that were ever paid.' }),
      paid_amount: money,
      success_rate: z.number().min(0).max(1).meta({
        description: 'paid_count / created_count, rounded to 4 decimals; 0 when nothing was created.',
      }),
    }),
    status_counts: z.object(
      Object.fromEntries(TRANSACTION_STATUSES.map((s) => [s, z.number().int()])) as Record<
        TransactionStatus,
        z.ZodNumber
      >,
    ),
    daily: z.array(dayEntry).meta({ description: 'Every day of the window, oldest first, zeros included.' }),
    tenants: z
      .object({ total: z.number().int(), active: z.number().int(), suspended: z.number().int() })
      .meta({ description: 'The current registry within the scope, whatever the window.' }),
  })
  .meta({ id: 'AdminSummary' });
