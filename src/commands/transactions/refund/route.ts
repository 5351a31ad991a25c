import { dataEnvelope, errorResponses, idParams } from '../../../contract/envelopes.ts';
import { refundBody } from '../../../contract/transactions.ts';
import { idempotencyKeyOf } from '../../../http/auth.ts';
import { eventMetadata } from '../../../http/request-metadata.ts';
import type { HttpServer } from '../../../http/server.ts';
import type { AppContext } from '../../context.ts';
import { changeRouteHelpers, transactionRouteHelpers } from '../shared/route-helpers.ts';
import { transactionView } from '../view.ts';
import { refundTransaction } from './handler.ts';

/**
 * `POST /v1/transactions/{id}/refund` (SPEC 3.1, 4.8): an idempotent change sent to the charge's provider;
 * `transactions:read` plus the method's write scope; a descendant's charge is 403 forbidden (SPEC 5.5).
 */
export function registerRefundRoute(app: HttpServer, ctx: AppContext): void {
  const { requireMethodScope, ownTransaction } = transactionRouteHelpers(ctx);
  const { changeContext, changeAnswer } = changeRouteHelpers(ctx);

  app.post(
    '/v1/transactions/:id/refund',
    {
      config: { access: { auth: 'api_key', scopes: ['transactions:read'], idempotencyKey: true } },
      schema: {
        operationId: 'refundTransaction',
        summary: 'Refund a paid transaction in full',
        description:
          "Requires Idempotency-Key (tenant scope, like creations). Scopes transactions:read plus the method write scope. Integral refund of a paid charge. One refund at a time per charge: while a refund of the same charge is being sent or is pending, a request with any key is 409 refund_in_progress and nothing is sent (a refunded charge answers 200 unchanged). Pix, and a boleto settled by its Pix: through the provider, 200 `refunded` with `refund.status` `succeeded`; the provider refuses: 502 provider_rejected with error.transaction_id and that answer's diagnostics, the charge stays paid with `refund.status` `failed` (a new request may try again); the answer is uncertain: 202, still paid, `refund.status` `pending`, and it is never sent again: asking again or the reconciler only reads the provider (if a day of reads still shows it paid, `refund.status` becomes `failed` and a new request may send it). A boleto paid by boleto needs `bank_account`, an account in the payer's own name (holder_document is the boleto payer's CPF or CNPJ, else 422): 202, still paid, `refund.status` `pending` until the money has gone, by a transfer through the provider where payouts are enabled or by the operator's panel otherwise; the account is kept encrypted, never in the charge history, and destroyed when the refund ends. Sending `bank_account` for anything else is 422. An unpaid charge is 409 conflict. Replays: 200 with `Idempotency-Replayed: true`. A descendant tenant's charge: 403 forbidden.",
        params: idParams,
        body: refundBody,
        response: {
          200: dataEnvelope(transactionView),
          202: dataEnvelope(transactionView),
          ...errorResponses(400, 401, 403, 404, 409, 422, 429, 502),
        },
      },
    },
    async (request, reply) => {
      const { principal, row } = await ownTransaction(request);
      requireMethodScope(request, row);
      const bank = request.body?.bank_account;
      const outcome = await refundTransaction(
        changeContext(),
        {
          scope: principal.tenantId,
          livemode: principal.livemode,
          key: idempotencyKeyOf(request),
          route: '/v1/transactions/{id}/refund',
          transactionId: row.id,
          body: bank ? { bank_account: bank } : {},
          bankAccount: bank ?? null,
        },
        eventMetadata(request),
      );
      return changeAnswer(row.id, outcome, reply);
    },
  );
}
