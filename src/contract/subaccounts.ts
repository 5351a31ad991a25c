import { z } from 'zod';
import { pageQuery } from './envelopes.ts';
import { utf8Text } from './text.ts';

/**
 * The HTTP contract of marketplace subaccount links (SPEC 2.7, 3.6, 4.14): pure zod, shared by the routes
 * and the SDK. The bank account is accepted only to be sent to the provider: never stored nor answered.
 */

export const SUBACCOUNT_STATUSES = ['creating', 'unknown', 'failed', 'active', 'disabled'] as const;

const digits = (min: number, max: number, description: string) =>
  z
    .string()
    .regex(new RegExp(`^[0-9]{${min},${max}}$`), { message: description })
    .meta({ description });

export const subaccountView = z
  .object({
    id: z.string(),
    provider_id: z.string(),
    tenant_id: z.string(),
    status: z.enum(SUBACCOUNT_STATUSES).meta({
      description:
        '`creating` (the provider call is under way) and `unknown` (no usable answer) need a refresh; `failed`: not created (a new attempt needs a new Idempotency-Key); `active`; `disabled` (the link was turned off locally).',
    }),
    name: z.string(),
    document: z.string(),
    email: z.string(),
    provider_reference: z.string().nullable().meta({ description: "The subaccount's id at the provider." }),
    has_production_token: z.boolean().meta({
      description: 'Computed on each read: false when the stored token is absent or cannot be opened.',
    }),
    has_sandbox_token: z.boolean().meta({
      description: 'Computed on each read: false when the stored token is absent or cannot be opened.',
    }),
    last_provider_error_code: z
      .string()
      .nullable()
      .meta({ description: "The provider's code, 1 to 10 digits." }),
    last_error_message: z.string().nullable().meta({ description: 'A fixed sanitized message.' }),
    last_error_code: z.string().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({
    id: 'Subaccount',
    description: "A tenant's subaccount under a marketplace provider. Tokens are never returned.",
  });

const address = z.strictObject({
  zip_code: digits(8, 8, '8 digits.'),
  street: utf8Text(2, 120),
  number: utf8Text(1, 20),
  complement: utf8Text(0, 120).optional(),
  district: utf8Text(2, 80),
  city: utf8Text(2, 80),
  state: z.string().regex(/^[A-Z]{2}$/, { message: 'two upper-case letters' }),
});

export const createSubaccountBody = z.strictObject({
  provider_id: z.string().min(1).max(64).meta({ description: 'A provider with is_marketplace true.' }),
  tenant_id: z.string().min(1).max(64).meta({ description: 'The tenant the subaccount is linked to.' }),
  name: utf8Text(2, 200).meta({ description: 'Legal name.' }),
  commercial_name: utf8Text(2, 200),
  document: digits(11, 14, 'CPF (11) or CNPJ (14) digits.').refine(
    (d) => d.length === 11 || d.length === 14,
    {
      message: 'CPF (11) or CNPJ (14) digits.',
    },
  ),
  email: z.email().max(254),
  responsible: z.strictObject({
    name: utf8Text(2, 120),
    document: digits(11, 11, 'CPF, 11 digits.'),
    phone: digits(10, 11, '10 or 11 digits, without +55.'),
    birth_date: z.iso.date(),
  }),
  address,
  bank_account: z
    .strictObject({
      bank_code: digits(3, 3, 'COMPE code, 3 digits.'),
      branch: digits(1, 5, 'Branch without its check digit.'),
      branch_digit: z
        .string()
        .regex(/^[0-9Xx]$/)
        .optional(),
      account: digits(1, 13, 'Account number without its check digit.'),
      account_digit: z
        .string()
        .regex(/^[0-9Xx]{1,2}$/)
        .optional(),
      account_type: z.enum(['checking', 'savings']),
    })
    .meta({
      description:
        "The payout account, in the subaccount's document. Sent to the provider only: never stored or returned.",
    }),
});
export type CreateSubaccountBody = z.infer<typeof createSubaccountBody>;

export const subaccountListQuery = pageQuery.extend({
  provider_id: z.string().min(1).max(64).optional(),
  tenant_id: z.string().min(1).max(64).optional(),
  status: z.enum(SUBACCOUNT_STATUSES).optional(),
});

export const updateSubaccountCredentialsBody = z.strictObject({
  api_key: z.string().min(1).max(4096).meta({
    description:
      "The subaccount's token for the marketplace provider's environment. Stored encrypted; never returned.",
  }),
  expected_updated_at: z.iso.datetime().meta({ description: '`updated_at` of the record as last read.' }),
});

export const linkSubaccountBody = z
  .strictObject({
    provider_reference: z
      .string()
      .min(1)
      .max(64)
      .meta({ description: "The subaccount's id at the provider." }),
    production_token: z.string().min(1).max(4096).optional(),
    sandbox_token: z.string().min(1).max(4096).optional(),
  })
  .refine((b) => b.production_token !== undefined || b.sandbox_token !== undefined, {
    message: 'send production_token and/or sandbox_token',
  });
