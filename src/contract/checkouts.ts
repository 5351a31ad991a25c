import { z } from 'zod';
import { pixBody } from './charges.ts';
import { pageQuery, treeFilterQuery } from './envelopes.ts';
import { utf8Text } from './text.ts';

/**
 * The HTTP contract of hosted checkouts (SPEC 2.7, 3.5, 4.9; docs/decisions.md "Hosted checkout (issue
 * 25)"): the view and the request schemas, shared by the routes and the SDK; pure (zod only).
 */

export const CHECKOUT_EXPIRES_IN = { min: 300, max: 2_592_000, default: 86_400 } as const;
export const CHECKOUT_BOLETO_DUE_IN_DAYS_DEFAULT = 3;

const methodEnum = z.enum(['pix', 'boleto', 'credit_card']);

const charge = pixBody.shape;

export const createCheckoutBody = z.strictObject({
  tenant_id: charge.tenant_id,
  methods: z
    .array(methodEnum)
    .min(1)
    .max(3)
    .refine((m) => new Set(m).size === m.length, { message: 'methods must not repeat' })
    .meta({
      description:
        'What the payer may pick, in the order the page shows them; each needs its scope (pix:write, boleto:write, credit_card:write).',
    }),
  amount: charge.amount,
  reference: charge.reference,
  description: charge.description,
  customer: charge.customer.optional().meta({
    description:
      'The payer, in the shape of POST /v1/pix. When sent it must hold what every offered method needs (phone and address; e-mail too for boleto) and the page asks nothing; when absent the page asks the payer.',
  }),
  expires_in: z
    .number()
    .int()
    .min(CHECKOUT_EXPIRES_IN.min)
    .max(CHECKOUT_EXPIRES_IN.max)
    .optional()
    .meta({ description: 'Seconds the link accepts a choice, 300 to 2592000 (30 days); default 86400.' }),
  boleto: z
    .strictObject({
      due_in_days: z.number().int().min(0).max(365).optional().meta({
        description: "Days from the payer's choice (São Paulo) to the due date, 0 to 365; default 3.",
      }),
      instruction: utf8Text(0, 200).optional(),
      cancel_after_due: z.boolean().optional(),
      days_before_cancel: z.number().int().min(0).max(120).optional(),
    })
    .optional()
    .meta({ description: 'Only when boleto is offered (else 422 validation_error).' }),
  cost_center_id: charge.cost_center_id,
  callback_url: charge.callback_url,
});
export type CreateCheckoutBody = z.infer<typeof createCheckoutBody>;

export const checkoutView = z
  .object({
    id: z.string(),
    tenant_id: z.string(),
    livemode: z.boolean(),
    status: z.enum(['open', 'processing', 'completed', 'failed', 'expired']),
    methods: z.array(methodEnum),
    amount: z.number().int(),
    currency: z.literal('BRL'),
    reference: z.string(),
    description: z.string(),
    customer: z
      .object({ name: z.string().optional(), document: z.string().optional(), email: z.string().optional() })
      .nullable()
      .meta({
        description:
          'Name, document and e-mail only: like transaction listings, a checkout never returns the payer phone or address.',
      }),
    url: z.string().meta({ description: 'The signed payer page: `{base_url}/checkout/<id>/<signature>`.' }),
    expires_at: z.iso.datetime(),
    transaction_ids: z.array(z.string()).meta({ description: 'The charges the payer made, oldest first.' }),
    paid_transaction_id: z.string().nullable(),
    late_payments: z.array(z.string()).meta({
      description:
        'Charges paid after the checkout was completed, expired or failed: refund them (POST /v1/transactions/{id}/refund).',
    }),
    callback_url: z.string().nullable(),
    cost_center_id: z.string().nullable(),
    cost_center_name: z.string().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({
    id: 'Checkout',
    description:
      'A hosted checkout: a link where the payer picks Pix, boleto or card. States open, processing (a charge is pending), completed, failed, expired.',
  });
export type CheckoutView = z.infer<typeof checkoutView>;

export const checkoutListQuery = pageQuery.extend({
  reference: z.string().min(1).max(200).optional().meta({ description: 'Exact match.' }),
  ...treeFilterQuery('checkouts'),
});
