import { z } from 'zod';
import { chargeCommon, pixCustomer } from './charges.ts';
import { customer, EXAMPLE_DUE_DATE, transaction } from './examples.ts';
import { operation } from './operation.ts';
import { chargeResponses } from './operations/transactions.ts';

/**
 * `POST /v1/pix-automatic/charges` (SPEC 4.11; issue 27 item 2): one debit of an approved Pix Automatic
 * authorization, scheduled for a due date of its calendar. Pure (zod only): the SDK bundles it.
 */

/** SPEC 4.11 charge body: the authorization, a due date of its calendar, and the contract's values again. */
export const pixAutomaticChargeBody = z.strictObject({
  tenant_id: chargeCommon.tenant_id,
  authorization_id: z
    .string()
    .min(1)
    .max(64)
    .meta({ description: "An approved Pix Automatic authorization of the key's own tenant (`pxa_…`)." }),
  due_date: z.iso.date().meta({
    description:
      'A due date of the authorized calendar (first due date + k × interval months; a short month’s last day, the original day returning), 2 to 10 days ahead in Brasilia time.',
  }),
  amount: chargeCommon.amount.meta({ description: 'Centavos: the amount of the authorization’s contract.' }),
  reference: chargeCommon.reference,
  description: chargeCommon.description,
  customer: pixCustomer.required({ document: true }).meta({
    description: 'The payer; `document` must be the authorization’s (compared trimmed and upper-cased).',
  }),
  cost_center_id: chargeCommon.cost_center_id,
  callback_url: chargeCommon.callback_url,
});
export type PixAutomaticChargeBody = z.infer<typeof pixAutomaticChargeBody>;

const AUTHORIZATION = 'pxa_01jd5a2c4e6g8j0m2p4r6t8w0y';
const scheduled = {
  ...transaction,
  status: 'pending',
  amount: 4990,
  // The tenant's Pix fees (1.99% + 30) apply to debits: 99.3 -> 99, plus 30.
  retained_amount: 129,
  split: { total_fee_amount: 129, merchant_amount: 4861, on: 'pix' },
  reference: 'assinatura-2026-12',
  description: 'Assinatura mensal',
  pix_copy_paste: null,
  pix_qr_code: null,
  expires_at: null,
  pix_automatic_authorization_id: AUTHORIZATION,
  scheduled_due_date: EXAMPLE_DUE_DATE,
};

/** SPEC 4.11: schedules one debit; answers as POST /v1/pix (the Transaction envelope). */
export const createPixAutomaticCharge = operation({
  method: 'POST',
  path: '/v1/pix-automatic/charges',
  access: { auth: 'api_key', scopes: ['pix:write'], idempotencyKey: true },
  tag: 'Pix Automatic',
  schema: {
    operationId: 'createPixAutomaticCharge',
    summary: 'Schedule a Pix Automatic debit',
    description:
      'Requires Idempotency-Key (scope: tenant + key). Schedules one debit of an approved authorization of the key’s own tenant (a descendant’s: 403 forbidden; another tree or mode: 404) for a due date of its calendar (422 automatic_calendar_mismatch), 2 to 10 days ahead in Brasilia time (422 automatic_schedule_window), with the contract’s amount and payer document (422 automatic_contract_mismatch); not approved: 422 automatic_not_approved. One debit per due date per authorization, whatever the key: 409 automatic_charge_exists. Live: the tenant’s Pix rule must still use the authorization’s production account (422 automatic_routing_changed, automatic_provider_unavailable) and production payments must be released. The answer is a Transaction with `method: pix`, `pix_automatic_authorization_id`, `scheduled_due_date` and null `expires_at`; `pending` means scheduled (never a QR code). 201 scheduled; 202 unknown (do not schedule again: read it or refresh it); 502 provider_rejected with error.transaction_id; 200 replay with `Idempotency-Replayed: true`. After the due date the service asks the provider every 5 minutes for 3 days, then hourly up to 30 days; the result arrives as `transaction.updated`.',
    body: pixAutomaticChargeBody,
    response: chargeResponses,
  },
  examples: {
    request: {
      authorization_id: AUTHORIZATION,
      due_date: EXAMPLE_DUE_DATE,
      amount: 4990,
      reference: 'assinatura-2026-12',
      description: 'Assinatura mensal',
      customer,
    },
    responses: {
      201: { data: scheduled },
      200: { data: scheduled },
      // A lost answer the provider's list did not show: unconfirmed, never scheduled again (SPEC 3.1).
      202: { data: { ...scheduled, status: 'unknown', provider_reference: null } },
    },
  },
});
