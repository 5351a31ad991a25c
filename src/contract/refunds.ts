import { z } from 'zod';
import { CHARGE_METHODS, STORED_METHODS } from '../aggregates/transaction/vocabulary.ts';
import { pageQuery, queryBoolean } from './envelopes.ts';

/**
 * The panel's refunds awaiting an operator (issue 22 item 4, SPEC 4.8): a boleto paid by boleto whose
 * refund is not paid out through the provider, or whose transfer the bank returned.
 */
export const refundQueueQuery = pageQuery.extend({
  livemode: queryBoolean.optional().meta({ description: 'Only live (`true`) or test (`false`) charges.' }),
});

export const refundQueueItem = z
  .object({
    transaction_id: z.string(),
    tenant_id: z.string(),
    livemode: z.boolean(),
    method: z.enum(STORED_METHODS),
    amount: z.number().int().meta({ description: 'The amount to return, in centavos (the whole charge).' }),
    paid_with: z.enum(CHARGE_METHODS).nullable(),
    refund: z.object({
      status: z.enum(['pending', 'failed']).meta({
        description: '`pending`: never paid out; `failed`: the bank returned the transfer.',
      }),
    }),
    updated_at: z.string().meta({ description: 'When the refund last changed (ISO 8601 UTC).' }),
  })
  .meta({ id: 'RefundAwaitingOperator' });

export const refundBankAccountView = z
  .object({
    transaction_id: z.string(),
    bank_account: z.object({
      bank_code: z.string(),
      branch: z.string(),
      account: z.string(),
      account_type: z.enum(['checking', 'savings']),
      holder_name: z.string(),
      holder_document: z.string(),
    }),
    hmac: z.string().meta({ description: 'Keyed hash of the account, as the charge history records it.' }),
  })
  .meta({ id: 'RefundBankAccount' });

export const completeRefundBody = z.strictObject({
  evidence: z.strictObject({
    reference: z.string().trim().min(1).max(200).meta({
      description: 'The end-to-end id of the Pix or TED, or the receipt number, that returned the money.',
    }),
    paid_on: z.iso.date().nullable().default(null).meta({ description: 'The day the money went back.' }),
    amount: z.number().int().min(1).meta({ description: 'Centavos returned: the whole charge.' }),
  }),
});

export const cancelRefundBody = z.strictObject({
  reason: z
    .string()
    .meta({ description: 'Why no money is returned through this refund (3 to 500 characters).' }),
});
