import { z } from 'zod';
import { CHARGE_METHODS, STORED_METHODS } from '../aggregates/transaction/vocabulary.ts';
import { transactionCardView } from './credit-card.ts';
import { pageQuery, queryBoolean } from './envelopes.ts';
import { utf8Text } from './text.ts';

/**
 * The HTTP contract of transactions (SPEC 2.2, 2.3, 4.3 to 4.8): the response views and the request schemas
 * of their routes. Shared by the routes and the SDK (issue 15 item 3), so neither can drift from the other;
 * pure (zod and the aggregate's import-free vocabulary only), because the SDK bundles it.
 */

/** SPEC 2.2 Transaction, as every public read and creation answers it. */
export const transactionView = z
  .object({
    id: z.string(),
    tenant_id: z.string(),
    amount: z.number().int(),
    retained_amount: z.number().int().meta({
      description:
        'Centavos retained as fees: the tenant’s own plus every ancestor’s in force on the issuance date, each percentage part rounded half up to the centavo. Fixed when the charge is issued; 0 on charges from before fees.',
    }),
    currency: z.string(),
    status: z.enum(['processing', 'pending', 'paid', 'expired', 'failed', 'unknown', 'refunded']),
    method: z.enum(STORED_METHODS),
    reference: z.string(),
    description: z.string(),
    simulated: z.boolean(),
    environment: z.enum(['sandbox', 'production']),
    livemode: z.boolean(),
    pix_copy_paste: z.string().nullable(),
    pix_qr_code: z.string().nullable(),
    expires_at: z.string().nullable(),
    provider_reference: z.string().nullable(),
    subaccount_id: z.string().nullable(),
    failure_code: z.string().nullable(),
    provider_error_code: z.string().nullable(),
    provider_error_message: z.string().nullable(),
    provider_http_status: z.number().int().nullable(),
    boleto_due_date: z.string().nullable(),
    boleto_url: z.string().nullable(),
    document_url: z.string(),
    boleto_digitable_line: z.string().nullable(),
    boleto_barcode: z.string().nullable(),
    boleto_pix_copy_paste: z.string().nullable(),
    boleto_pix_expires_at: z.string().nullable(),
    paid_with: z.enum(CHARGE_METHODS).nullable(),
    paid_at: z.string().nullable(),
    duplicate_payment_at: z.string().nullable(),
    split: z
      .object({ total_fee_amount: z.number().int(), merchant_amount: z.number().int(), on: z.string() })
      .nullable()
      .meta({
        description:
          'Derived by the server, never sent: `total_fee_amount` + `merchant_amount` = `amount`; `on` is the method the fees were computed on. A boleto paid by its Pix shows the Pix fees here (`on: pix`). Amounts before provider costs; not a proof of settlement. null on charges from before fees.',
      }),
    tenant_fee_id: z
      .string()
      .nullable()
      .meta({ description: 'The tenant’s own fee version applied; null when only ancestors’ fees apply.' }),
    fee_starts_on: z
      .string()
      .nullable()
      .meta({ description: 'Start date (`YYYY-MM-DD`) of `tenant_fee_id`; null with it.' }),
    cost_center_id: z.string().nullable(),
    cost_center_name: z.string().nullable(),
    callback_url: z.string().nullable(),
    refund: z
      .object({ status: z.string() })
      .nullable()
      .meta({ description: 'Set once a refund was requested; null otherwise.' }),
    credit_card: transactionCardView
      .nullable()
      .meta({ description: 'A card charge’s masked card; null otherwise.' }),
    pix_automatic_authorization_id: z.string().nullable().meta({
      description:
        'A scheduled Pix Automatic debit’s authorization; null for every other charge. While such a debit is `pending` it is scheduled, never payable by a QR code.',
    }),
    scheduled_due_date: z
      .string()
      .nullable()
      .meta({ description: 'A Pix Automatic debit’s due date (`YYYY-MM-DD`); null otherwise.' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({
    id: 'Transaction',
    description:
      'A charge. Check `simulated` and `environment`: a simulator Pix payload is a test marker, never a payable QR code. `pix_copy_paste`/`pix_qr_code` are null while the outcome is uncertain.',
  });
export type TransactionView = z.infer<typeof transactionView>;

/** SPEC 2.3 TransactionRequest. */
export const transactionRequestView = z
  .object({
    transaction_id: z.string(),
    source: z.enum(['captured', 'legacy_partial']),
    request: z.record(z.string(), z.unknown()),
    provider_request: z.record(z.string(), z.unknown()).nullable(),
    missing_fields: z.array(z.string()),
  })
  .meta({
    id: 'TransactionRequest',
    description:
      'The creation request as the gateway received it; contains payer personal data, except for a panel viewer (`request.customer` and `provider_request` null).',
  });

const filters = {
  tenant_id: z.string().min(1).max(64).optional().meta({
    description:
      'The filter root, within the permitted scope (outside: 404 not_found); with include_descendants=true, its subtree.',
  }),
  status: transactionView.shape.status.optional(),
  method: transactionView.shape.method.optional(),
  reference: z.string().min(1).max(200).optional().meta({ description: 'Exact match; may return several.' }),
  cost_center_id: z.string().min(1).max(64).optional().meta({
    description: 'A cost-center id, or `unassigned` for transactions without one.',
  }),
};

// Strict: a mistyped filter name is 422, never a silently wider list (as GET /admin/summary).
export const publicTransactionQuery = z.strictObject({
  ...pageQuery.shape,
  ...filters,
  include_descendants: queryBoolean
    .default(false)
    .meta({ description: "false (default): the filter root only (the key's tenant); true: its subtree." }),
});

export const panelTransactionQuery = z.strictObject({
  ...pageQuery.shape,
  ...filters,
  include_descendants: queryBoolean.default(true).meta({
    description:
      "true (default): the whole permitted scope below the filter root; false: the filter root only (tenant_id, or the user's own tenant; for a super_admin without tenant_id, everything).",
  }),
  livemode: queryBoolean
    .default(true)
    .meta({ description: '`true` (default): production transactions only; `false`: test-mode only.' }),
});

export const simulateBody = z.strictObject({
  status: z.enum(['paid', 'expired']).meta({ description: 'The outcome to simulate.' }),
});

// Issue 23 item 1.7: each format carries a message for people (zod's would quote the regular expression).
const digitsText = (min: number, max: number, description: string) =>
  z
    .string()
    .regex(new RegExp(`^[0-9]{${min},${max}}$`), {
      message: `must be ${min === max ? min : `${min} to ${max}`} digits`,
    })
    .meta({ description });

/** SPEC 4.8: the payer's account for refunding a boleto paid by boleto; passed to the provider, never stored. */
const bankAccount = z.strictObject({
  bank_code: digitsText(3, 3, 'COMPE bank code, 3 digits.'),
  branch: digitsText(1, 5, 'Branch (agência) without check digit, 1 to 5 digits.'),
  account: z
    .string()
    .regex(/^[0-9]{1,19}-?[0-9Xx]$/, {
      message: 'must be the account number with its check digit, e.g. 12345-6',
    })
    .meta({ description: 'Account number with its check digit, e.g. `12345-6`.' }),
  account_type: z.enum(['checking', 'savings']),
  holder_name: utf8Text(2, 120),
  holder_document: z
    .string()
    .regex(/^(?:[A-Za-z0-9]{11}|[A-Za-z0-9]{14})$/, {
      message: "must be the holder's CPF (11) or CNPJ (14), letters and digits only",
    })
    .meta({ description: 'CPF or CNPJ of the holder: 11 or 14 alphanumerics.' }),
});
export const refundBody = z
  .strictObject({
    bank_account: bankAccount.optional().meta({
      description:
        "Required only for a boleto paid by boleto: an account in the boleto payer's own name, where the money goes back by transfer. Refused otherwise (refund by Pix).",
    }),
  })
  // No body at all is fine (a JSON `null` body never gets here: the strict parser refuses it).
  .nullish();
export const dueDateBody = z.strictObject({
  due_date: z.iso.date().meta({ description: 'New due date, today to today+365 in America/Sao_Paulo.' }),
});

export const transactionEvent = z
  .object({
    id: z.string().meta({ description: 'The event id.' }),
    position: z.number().int().meta({ description: 'Global position in the log.' }),
    version: z.number().int().min(1).meta({ description: '1-based position within the stream.' }),
    type: z.string().meta({ description: 'e.g. Transaction.Reserved' }),
    schema_version: z.number().int().min(1).meta({ description: 'The schema version it was written in.' }),
    data: z.record(z.string(), z.unknown()).meta({
      description:
        'The payload as recorded. Transaction.Reserved carries the creation snapshot (the creation request, with payer personal data) and the sha256 of the Idempotency-Key, never the key. A viewer reads it without the payer: `request.customer` and `provider_request` null, and refund requests without `bank_account`.',
    }),
    metadata: z.object({
      actor: z.string().meta({ description: '`user:<id>`, `api_key:<id>` or `system:<job>`' }),
      request_id: z.string().nullable(),
      tenant_id: z.string().nullable(),
      livemode: z.boolean().nullable(),
      correlation_id: z.string().nullable(),
      causation_id: z.string().nullable(),
    }),
    recorded_at: z.iso.datetime(),
  })
  .meta({ id: 'TransactionEvent' });

/**
 * Issue 23 item 1.6 (SPEC 1 "the same validation", 4.1, 4.2): what the external provider refuses in a new
 * charge that the gateway can see before the call. Its creation needs the payer's CPF or CNPJ
 * (`Customer.Identity`, 11 or 14 characters: wire doc 2.4; the emulator answers code 9002 without it), which
 * SPEC 4.1 leaves optional. So a charge whose routing rule names the external provider must carry
 * `customer.document`, in both modes: a test key routed there gets the same 422 as the live key, before
 * reservation, nothing stored. The format (11 or 14 alphanumerics) is already the body schema's; SPEC 4.1
 * says "format only, no check digits", so no CPF/CNPJ check digit is computed here.
 */
export const EXTERNAL_PROVIDER_PAYER_RULES = [
  {
    param: 'customer.document',
    required: (customer: { document?: string | undefined }) => customer.document !== undefined,
    message:
      "customer.document is required: the payment provider this charge is routed to needs the payer's CPF (11 digits) or CNPJ (14 characters), without punctuation.",
  },
] as const;

/** The first rule of {@link EXTERNAL_PROVIDER_PAYER_RULES} the payer breaks, or null. */
export function externalProviderPayerIssue(customer: {
  document?: string | undefined;
}): { param: string; message: string } | null {
  const broken = EXTERNAL_PROVIDER_PAYER_RULES.find((rule) => !rule.required(customer));
  return broken ? { param: broken.param, message: broken.message } : null;
}
