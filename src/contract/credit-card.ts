import { z } from 'zod';
import { chargeCommon, newCustomer, pixCustomer } from './charges.ts';
import { utf8Text } from './text.ts';

/**
 * The card charge's contract (SPEC 4.9, 8; issue 25): its body, shared by the route and the SDK (which
 * validates locally before the network, SPEC 9), and the masked card a Transaction shows. Pure (zod only).
 * The card number and security code are checked here for shape and Luhn only; the expiry against the
 * server's clock (America/Sao_Paulo month) and the brand are the command's.
 */

/** The Luhn check digit rule (ISO/IEC 7812-1): written here so the SDK needs no card library. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export const CARD_ID = /^card_[A-Za-z0-9_-]{1,64}$/;

const cardFields = {
  card_id: z
    .string()
    .regex(CARD_ID, { message: 'must be a card id (card_…) returned by an earlier charge' })
    .optional()
    .meta({
      description:
        'A card kept by an earlier approved charge of this key’s tenant and mode, charged only through the provider account (and marketplace subaccount link) that kept it. Never with card data.',
    }),
  holder: utf8Text(2, 25).optional().meta({
    description: 'The name as printed on the card, 2 to 25 bytes after trim (the provider’s limit).',
  }),
  number: z
    .string()
    .regex(/^[0-9]{13,19}$/, { message: 'must be 13 to 19 digits' })
    .refine(passesLuhn, { message: 'is not a valid card number (Luhn check)' })
    .optional()
    .meta({ description: '13 to 19 digits, Luhn-valid. Never stored, logged or echoed.' }),
  expiration: z
    .string()
    .regex(/^(0[1-9]|1[0-2])\/[0-9]{4}$/, { message: 'must be MM/YYYY' })
    .optional()
    .meta({ description: '`MM/YYYY`, not in the past (America/Sao_Paulo).' }),
  security_code: z
    .string()
    .regex(/^[0-9]{3,4}$/, { message: 'must be 3 or 4 digits' })
    .optional()
    .meta({ description: '3 or 4 digits. Used for one provider call, never stored.' }),
};

const DATA_FIELDS = ['holder', 'number', 'expiration', 'security_code'] as const;

/** A stored card (`card_id`) or the card data (all four fields), never both (issue 25 item 1). */
export const creditCardInput = z
  .strictObject(cardFields)
  .superRefine((c, ctx) => {
    const data = DATA_FIELDS.filter((f) => c[f] !== undefined);
    if (c.card_id !== undefined) {
      if (data.length > 0) {
        ctx.addIssue({
          code: 'custom',
          path: [data[0] as string],
          message: 'send card_id or the card data, not both',
        });
      }
      return;
    }
    for (const f of DATA_FIELDS) {
      if (c[f] === undefined)
        ctx.addIssue({ code: 'custom', path: [f], message: 'is required without card_id' });
    }
  })
  .meta({ description: 'Either `card_id`, or `holder`, `number`, `expiration` and `security_code`.' });
export type CreditCardInput = z.infer<typeof creditCardInput>;

export const creditCardBody = z.strictObject({
  ...chargeCommon,
  customer: pixCustomer,
  installments: z
    .number()
    .int()
    .min(1)
    .max(12)
    .optional()
    .meta({ description: '1 to 12; default 1. Captured at once for the whole amount.' }),
  credit_card: creditCardInput,
});

/** The SDK's strict form: a new card charge carries the payer's phone and address (SPEC 4.1 rules). */
export const newCreditCardBody = creditCardBody.extend({ customer: newCustomer(pixCustomer) });

/** What a Transaction shows of its card: never the number, the security code or the provider's token. */
export const transactionCardView = z
  .object({
    card_id: z.string().nullable().meta({
      description: 'Charge this card again with `credit_card.card_id`; null until a charge kept it.',
    }),
    brand: z.string(),
    last_four: z.string(),
    holder: z.string(),
    expiration: z.string(),
    installments: z.number().int(),
  })
  .meta({ id: 'TransactionCard', description: 'The masked card of a card charge.' });
