import { z } from 'zod';
import { chargeCommon, newBoletoBody } from './charges.ts';
import { CARD_ID, creditCardInput } from './credit-card.ts';
import { pageQuery, treeFilterQuery } from './envelopes.ts';
import { utf8Bytes } from './text.ts';

/**
 * The HTTP contract of subscriptions and their cycles (SPEC 2.4, 2.5, 4.10, 8; docs/decisions.md
 * "Subscriptions (issue 26)"): request and view schemas, shared by the routes and the SDK; pure (zod only).
 * Rules that need the server's clock (the first due date in Brasilia time) or other records (the cost center,
 * the authorization, routing) are the command's.
 */

export const SUBSCRIPTION_METHOD_VALUES = ['boleto', 'pix', 'pix_automatic', 'credit_card'] as const;
const methodEnum = z.enum(SUBSCRIPTION_METHOD_VALUES);
const statusEnum = z.enum(['active', 'paused', 'cancelled']);
/** SPEC 8: Pix Automatic calendars are 1, 3, 6 or 12 months. */
export const AUTOMATIC_INTERVALS = [1, 3, 6, 12] as const;
/** SPEC 8 `advance_days` per method, and the default when omitted (ours: docs/decisions.md). */
export const ADVANCE_DAYS = {
  boleto: { min: 0, max: 30, default: 0 },
  pix: { min: 0, max: 30, default: 0 },
  credit_card: { min: 0, max: 0, default: 0 },
  pix_automatic: { min: 2, max: 10, default: 2 },
} as const;

/** Up to `max` characters (SPEC 8 counts these in characters) and, as a charge's text, up to `bytes` bytes. */
function characters(min: number, max: number, bytes: number) {
  return z
    .string()
    .refine((s) => [...s.trim()].length >= min && [...s.trim()].length <= max, {
      message: `must have ${min} to ${max} characters after trim`,
    })
    .refine((s) => utf8Bytes(s.trim()) <= bytes, { message: `must have up to ${bytes} bytes (UTF-8)` });
}

/** SPEC 4.10: a complete payer, no tenant default (every field of POST /v1/boleto's payer, name and document too). */
export const subscriptionCustomer = newBoletoBody.shape.customer
  .required({ name: true, document: true })
  .meta({
    description:
      'The payer of every cycle: name, document, e-mail, digits-only phone and Brazilian address, all required.',
  });

const subscriptionCard = z
  .strictObject({
    token: z
      .string()
      .regex(CARD_ID, { message: 'must be a card id (card_…) returned by an earlier card charge' })
      .optional()
      .meta({
        description: "A card kept by an earlier approved charge of this key's tenant and mode (`card_…`).",
      }),
    holder: creditCardInput.shape.holder,
    number: creditCardInput.shape.number,
    expiration: creditCardInput.shape.expiration,
    security_code: creditCardInput.shape.security_code,
    installments: z.literal(1).meta({ description: 'Must be 1: each cycle debits the card once, in full.' }),
    authorized: z
      .literal(true)
      .meta({ description: 'Must be true: the payer authorized recurring debits of this card.' }),
  })
  .superRefine((c, ctx) => {
    const data = (['holder', 'number', 'expiration', 'security_code'] as const).filter(
      (f) => c[f] !== undefined,
    );
    if (c.token !== undefined) {
      if (data.length > 0) {
        ctx.addIssue({
          code: 'custom',
          path: [data[0] as string],
          message: 'send token or the card data, not both',
        });
      }
      return;
    }
    for (const f of ['holder', 'number', 'expiration', 'security_code'] as const) {
      if (c[f] === undefined)
        ctx.addIssue({ code: 'custom', path: [f], message: 'is required without token' });
    }
  })
  .meta({
    description:
      'Either `token` (a `card_…` id) or the card data (`holder`, `number`, `expiration`, `security_code`), never both; the number and code are used for one provider call and never stored.',
  });

export const createSubscriptionBody = z
  .strictObject({
    tenant_id: chargeCommon.tenant_id,
    name: characters(1, 100, 120).meta({ description: 'Up to 100 characters.' }),
    description: characters(1, 200, 200).optional().meta({
      description:
        "Each cycle's charge description: up to 200 characters and 200 bytes (a charge's limit); default the name.",
    }),
    amount: chargeCommon.amount.meta({ description: 'Centavos per cycle, 1 to 100000000.' }),
    method: methodEnum,
    first_due_date: z.iso.date().meta({
      description:
        'YYYY-MM-DD, today or later in Brasilia time; boleto and pix at most 365 days ahead; pix_automatic at least 2 days ahead.',
    }),
    interval_months: z
      .number()
      .int()
      .min(1)
      .max(120)
      .meta({ description: 'Months between due dates, 1 to 120; pix_automatic 1, 3, 6 or 12.' }),
    advance_days: z.number().int().min(0).max(30).optional().meta({
      description:
        'Days before each due date a cycle is issued: boleto and pix 0 to 30 (default 0), credit_card 0, pix_automatic 2 to 10 (default 2). The first charge is issued at creation.',
    }),
    customer: subscriptionCustomer,
    authorization_id: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .meta({ description: 'Required with pix_automatic, refused otherwise.' }),
    callback_url: chargeCommon.callback_url,
    cost_center_id: chargeCommon.cost_center_id,
    credit_card: subscriptionCard
      .optional()
      .meta({ description: 'Required with credit_card, refused otherwise.' }),
    test_clock_id: z.string().min(1).max(64).optional().meta({
      description:
        "Test keys only: the test clock whose time this subscription follows (POST /v1/test_clocks/{id}/advance). A live key's request with it is refused.",
    }),
  })
  .superRefine((b, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    const advance = ADVANCE_DAYS[b.method];
    if (b.advance_days !== undefined && (b.advance_days < advance.min || b.advance_days > advance.max)) {
      issue('advance_days', `must be ${advance.min} to ${advance.max} for ${b.method}`);
    }
    if (b.method === 'pix_automatic') {
      if (!(AUTOMATIC_INTERVALS as readonly number[]).includes(b.interval_months)) {
        issue('interval_months', 'must be 1, 3, 6 or 12 for pix_automatic');
      }
      if (b.authorization_id === undefined) issue('authorization_id', 'is required with pix_automatic');
    } else if (b.authorization_id !== undefined) {
      issue('authorization_id', 'is accepted only with pix_automatic');
    }
    if (b.method === 'credit_card' && b.credit_card === undefined)
      issue('credit_card', 'is required with credit_card');
    if (b.method !== 'credit_card' && b.credit_card !== undefined) {
      issue('credit_card', 'is accepted only with credit_card');
    }
  });
export type CreateSubscriptionBody = z.infer<typeof createSubscriptionBody>;

export const patchSubscriptionBody = z
  .strictObject({
    status: statusEnum.optional().meta({ description: 'paused, active (resume) or cancelled (final).' }),
    cost_center_id: z
      .string()
      .min(1)
      .max(64)
      .nullable()
      .optional()
      .meta({ description: 'A cost center of the tenant, or null to remove it; future cycles only.' }),
  })
  .refine((b) => b.status !== undefined || b.cost_center_id !== undefined, {
    message: 'send status and/or cost_center_id',
  });
export type PatchSubscriptionBody = z.infer<typeof patchSubscriptionBody>;

export const subscriptionView = z
  .object({
    id: z.string(),
    tenant_id: z.string(),
    livemode: z.boolean(),
    status: statusEnum,
    name: z.string(),
    customer_name: z.string(),
    amount: z.number().int(),
    method: methodEnum,
    description: z.string(),
    first_due_date: z.iso.date(),
    next_due_date: z.iso.date(),
    interval_months: z.number().int(),
    advance_days: z.number().int(),
    cycle: z.number().int().meta({ description: 'The last cycle started (0 before the first).' }),
    authorization_id: z.string().nullable(),
    callback_url: z.string().nullable(),
    last_error: z.string().nullable().meta({
      description: 'Why the last emission stopped before its charge was reserved; retried every 15 minutes.',
    }),
    next_attempt_at: z.iso.datetime().nullable(),
    test_clock_id: z.string().nullable(),
    cost_center_id: z.string().nullable(),
    cost_center_name: z.string().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'Subscription', description: 'A recurring charge (states active, paused, cancelled).' });
export type SubscriptionView = z.infer<typeof subscriptionView>;

export const cycleView = z
  .object({
    id: z.string(),
    subscription_id: z.string(),
    cycle: z
      .number()
      .int()
      .meta({ description: 'From 1; 0 for the card registration of a future first due date.' }),
    due_date: z.iso.date(),
    status: z.enum(['pending', 'created', 'attention', 'skipped']),
    transaction_id: z.string().nullable(),
    checkout_id: z.string().nullable(),
    transaction_status: z
      .enum(['processing', 'pending', 'paid', 'expired', 'failed', 'unknown', 'refunded'])
      .nullable(),
    payment_url: z.string().nullable().meta({
      description:
        'The checkout link (pix) or the charge document (boleto, pix_automatic), at the gateway domain.',
    }),
    error_code: z.string().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({
    id: 'SubscriptionCycle',
    description:
      'One cycle: created (a charge or Pix link exists: read transaction_status), attention (reserved, refused or unconfirmed: never resent in the cycle), skipped (not charged: error_code), pending (emission in progress).',
  });
export type CycleView = z.infer<typeof cycleView>;

export const subscriptionListQuery = pageQuery.extend({
  status: statusEnum.optional(),
  ...treeFilterQuery('subscriptions'),
});

export const cycleListQuery = pageQuery;
