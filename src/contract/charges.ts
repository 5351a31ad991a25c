import { z } from 'zod';
import { JsonDecimal } from './json-decimal.ts';
import { utf8Bytes, utf8Text } from './text.ts';
import { normalizedUrl } from './url-normal-form.ts';

/**
 * The request bodies of charge creation (SPEC 4.1, 4.2), shared by the routes and the SDK (issue 15 item 3)
 * so that neither can drift from the other; pure (zod only), because the SDK bundles it.
 */

/** SPEC 4.1 `customer.address.state`: the 27 federative units. */
export const BRAZILIAN_STATES = new Set([
  'AC',
  'AL',
  'AP',
  'AM',
  'BA',
  'CE',
  'DF',
  'ES',
  'GO',
  'MA',
  'MT',
  'MS',
  'MG',
  'PA',
  'PB',
  'PR',
  'PE',
  'PI',
  'RJ',
  'RN',
  'RS',
  'RO',
  'RR',
  'SC',
  'SP',
  'SE',
  'TO',
]);

const trimmedMatch = (re: RegExp, description: string) =>
  z
    .string()
    .refine((s) => re.test(s.trim()), { message: description })
    .meta({ description });

const address = z.strictObject({
  zip_code: trimmedMatch(/^[0-9]{8}$/, '8 digits.'),
  street: utf8Text(2, 120),
  number: utf8Text(1, 20).meta({ description: '1 to 20 bytes after trim; may be `S/N`.' }),
  complement: utf8Text(0, 120).optional(),
  district: utf8Text(2, 80),
  city: utf8Text(2, 80),
  state: z
    .string()
    .refine((s) => BRAZILIAN_STATES.has(s.trim().toUpperCase()), { message: 'must be a Brazilian state' })
    .meta({ description: 'A valid Brazilian two-letter state (trimmed and upper-cased for the provider).' }),
});

const customerCommon = {
  name: utf8Text(2, 120).optional(),
  document: trimmedMatch(
    /^(?:[A-Za-z0-9]{11}|[A-Za-z0-9]{14})$/,
    '11 or 14 alphanumeric characters without punctuation; trimmed and upper-cased; format only.',
  ).optional(),
  /** Required for a new charge (422 from the command, after the replay lookup: SPEC 4.1 legacy replay). */
  address: address.optional(),
};
const email = z
  .string()
  .refine(
    (s) => {
      const t = s.trim();
      return t.includes('@') && utf8Bytes(t) <= 254;
    },
    { message: 'must contain @ and have up to 254 bytes' },
  )
  .meta({ description: 'Contains @, up to 254 bytes; trimmed and lower-cased.' });

export const pixCustomer = z.strictObject({
  ...customerCommon,
  email: email.optional(),
  phone: z
    .string()
    .refine((s) => utf8Bytes(s) <= 20 && /^[0-9]+$/.test(s.trim()), {
      message: 'digits only after trim, up to 20 bytes in the original value',
    })
    .optional()
    .meta({
      description:
        'Required for a new charge; digits only after trim; up to 20 bytes in the ORIGINAL value. A charge stored before it was required still replays its first answer.',
    }),
});
const boletoCustomer = z.strictObject({
  ...customerCommon,
  email,
  phone: z
    .string()
    .refine(
      (s) => {
        const t = s.trim();
        return utf8Bytes(t) >= 1 && utf8Bytes(t) <= 20 && /^[0-9]+$/.test(t);
      },
      { message: 'digits only, 1 to 20 bytes after trim' },
    )
    .optional()
    .meta({
      description:
        'Required for a new charge; digits only; 1 to 20 bytes after trim. A charge stored before it was required still replays its first answer.',
    }),
});

/** Issue 23 item 2.9: the webhook endpoints' rule (url-normal-form.ts): the normal form is what is stored. */
const callbackUrl = normalizedUrl(2048).meta({
  description:
    'An https address receiving the webhook events of this charge; private, loopback, link-local and metadata addresses are refused (422). Written as a URL parser writes it (anything it would read differently, like a backslash, an empty host or port 0, is refused with 422); stored in that form (`https://shop.example` as `https://shop.example/`).',
});

export const chargeCommon = {
  /** SPEC 5.5: accepted only to answer `422 tenant_from_api_key`. */
  tenant_id: z.unknown().optional().meta({ description: 'Never send: 422 tenant_from_api_key.' }),
  amount: z.number().int().min(1).max(100_000_000).meta({ description: 'Centavos, 1 to 100000000.' }),
  reference: utf8Text(1, 100),
  description: utf8Text(1, 200),
  cost_center_id: z.string().min(1).max(64).optional(),
  callback_url: callbackUrl.optional(),
};

/** A percentage 0 to 100 with at most two decimals, read from the lexeme (strict JSON keeps it). */
const rate = z
  .unknown()
  .transform((v, ctx) => {
    const lexeme = typeof v === 'number' ? String(v) : v instanceof JsonDecimal ? v.lexeme : null;
    if (lexeme === null || !/^[0-9]+(?:\.[0-9]{1,2})?$/.test(lexeme) || Number(lexeme) > 100) {
      ctx.addIssue({ code: 'custom', message: 'must be a number from 0 to 100 with at most two decimals' });
      return z.NEVER;
    }
    return Number(lexeme);
  })
  .meta({ type: 'number', description: 'Percentage 0 to 100, at most two decimals; default 0.' });

export const pixBody = z.strictObject({
  ...chargeCommon,
  customer: pixCustomer,
  expires_in: z
    .number()
    .int()
    .refine((n) => n === 0 || (n >= 60 && n <= 86_400), { message: 'must be 60 to 86400 (or 0)' })
    .optional()
    .meta({ description: 'Seconds, 60 to 86400; omitted or 0 gives 3600.' }),
});
export const boletoBody = z.strictObject({
  ...chargeCommon,
  customer: boletoCustomer,
  boleto: z.strictObject({
    due_date: z.iso.date().meta({ description: 'Today to today+365 in America/Sao_Paulo (first issuance).' }),
    instruction: utf8Text(0, 200).optional(),
    penalty_rate: rate.optional(),
    interest_rate: rate.optional(),
    cancel_after_due: z.boolean().optional(),
    days_before_cancel: z.number().int().min(0).max(120).optional(),
  }),
});

/** SPEC 4.2, 5.7: POST /admin/boleto takes the public body plus the tenant to charge for. */
export const panelBoletoBody = boletoBody.extend({
  tenant_id: z.string().min(1).max(64).optional().meta({ description: 'The tenant to charge for.' }),
});

/**
 * A payer with phone and address required, checked in that order (the command's order, so the first field
 * at fault is the one the server names).
 */
export function newCustomer<S extends typeof pixCustomer.shape | typeof boletoCustomer.shape>(
  customer: z.ZodObject<S>,
) {
  const { phone, address: _address, ...rest } = customer.shape;
  return z.strictObject({ ...rest, phone: phone.unwrap(), address });
}

/**
 * SPEC 4.1 "required for a new charge": phone and address. The route accepts a body without them only so that
 * a legacy record still replays (the command refuses them for a new attempt with 422 validation_error, after
 * the replay lookup); a new charge must carry them, so the SDK's strict `createPix` (SPEC 9) checks this one.
 */
export const newPixBody = pixBody.extend({ customer: newCustomer(pixCustomer) });

/** The same rule for a new boleto (SPEC 4.2: "Address is mandatory as in 4.1"; phone required). */
export const newBoletoBody = boletoBody.extend({ customer: newCustomer(boletoCustomer) });
