import { z } from 'zod';
import { MAX_PERCENT_BPS } from '../aggregates/fees.ts';
import { MAX_AMOUNT } from '../aggregates/transaction/vocabulary.ts';
import { pageQuery } from './envelopes.ts';

/**
 * The HTTP contract of fee schedules (issue 28 item 4): the view and request schemas of their routes, shared
 * by the routes and the SDK; pure (zod and import-free vocabulary only), because the SDK bundles it.
 */

const FEE_METHODS = ['pix', 'boleto', 'credit_card'] as const;
const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date YYYY-MM-DD');

export const feeVersionDto = z
  .object({
    id: z.string(),
    tenant_id: z.string(),
    method: z.enum(FEE_METHODS),
    percent_bps: z.number().int().meta({ description: 'Percentage part in basis points (150 = 1.50%).' }),
    fixed_amount: z.number().int().meta({ description: 'Fixed part in centavos.' }),
    starts_on: z.string().meta({ description: 'First Brasilia business date the version is in force.' }),
    created_at: z.string(),
  })
  .meta({
    id: 'FeeVersion',
    description:
      "One version of a tenant's fees for a method. It is in force from `starts_on` until a later version starts; it never changes. A charge retains the fees of its tenant and of every ancestor in force on its issuance date, each level's percentage part rounded half up to the centavo.",
  });

export const createFeeVersionBody = z.strictObject({
  tenant_id: z.string().min(1).max(64),
  method: z.enum(FEE_METHODS).meta({ description: 'Pix Automatic debits use the pix fees.' }),
  percent_bps: z.number().int().min(0).max(MAX_PERCENT_BPS),
  fixed_amount: z.number().int().min(0).max(MAX_AMOUNT),
  starts_on: date.meta({
    description:
      'Today or later (America/Sao_Paulo). Another version of the same tenant and method on this date is 409 conflict, unless its rates are the same (then nothing changes).',
  }),
});

export const feeVersionListQuery = pageQuery.extend({
  tenant_id: z.string().min(1).max(64).optional(),
  method: z.enum(FEE_METHODS).optional(),
});
