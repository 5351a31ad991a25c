import { createPixAutomaticCharge } from '../../../../contract/pix-automatic-charges.ts';
import { bind } from '../../../bind.ts';
import { answerCreation } from '../../../transactions/create/route.ts';
import { createDebit } from './handler.ts';

/**
 * `POST /v1/pix-automatic/charges` (SPEC 4.11): the answers of POST /v1/pix (SPEC 3.1): 201 scheduled
 * (`pending`), 202 unknown, 502 provider_rejected with error.transaction_id, 200 replay with
 * `Idempotency-Replayed: true` (202 while still processing).
 */
export const createDebitRoutes = [
  bind(createPixAutomaticCharge, (call, ctx) => {
    const key = call.apiKey();
    return answerCreation(ctx, 'debit', () =>
      createDebit(
        ctx,
        {
          tenantId: key.tenantId,
          livemode: key.livemode,
          idempotencyKey: call.idempotencyKey(),
          body: call.body,
        },
        call.metadata(),
      ),
    );
  }),
];
