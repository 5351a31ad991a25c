import { z } from 'zod';
import { transactionView } from './transactions.ts';

/**
 * SPEC 6 message body, as src/webhooks/message-body.ts writes it: the Transaction as GET /v1/transactions/{id}
 * answers it at that moment, plus `previous_status` and `sequence`. Registered by its id, so the document
 * lists it under components and the `webhooks` section refers to it.
 */
export const transactionWebhookEvent = z
  .object({
    type: z.enum(['transaction.created', 'transaction.updated']),
    timestamp: z.string().meta({ description: 'When the event happened (ISO 8601).' }),
    data: transactionView.extend({
      previous_status: transactionView.shape.status
        .nullable()
        .meta({ description: 'null on `transaction.created`; the status before this change otherwise.' }),
      sequence: z
        .number()
        .int()
        .meta({ description: 'Counts up per charge: drop updates older than the one held.' }),
    }),
  })
  .meta({
    id: 'TransactionWebhookEvent',
    description: 'The body of every webhook delivery, `transaction.created` or `transaction.updated`.',
  });
