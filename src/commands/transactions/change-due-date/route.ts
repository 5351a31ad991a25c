import { dataEnvelope, errorResponses, idParams } from '../../../contract/envelopes.ts';
import { dueDateBody } from '../../../contract/transactions.ts';
import { idempotencyKeyOf } from '../../../http/auth.ts';
import { eventMetadata } from '../../../http/request-metadata.ts';
import type { HttpServer } from '../../../http/server.ts';
import type { AppContext } from '../../context.ts';
import { changeRouteHelpers, transactionRouteHelpers } from '../shared/route-helpers.ts';
import { transactionView } from '../view.ts';
import { changeBoletoDueDate } from './handler.ts';

/**
 * `PATCH /v1/transactions/{id}/boleto` (SPEC 4.8): a new due date for an open boleto, an idempotent change
 * sent to the charge's provider; `transactions:read` plus `boleto:write`; own tenant only (SPEC 5.5).
 */
export function registerChangeDueDateRoute(app: HttpServer, ctx: AppContext): void {
  const { ownTransaction } = transactionRouteHelpers(ctx);
  const { changeContext, changeAnswer } = changeRouteHelpers(ctx);

  app.patch(
    '/v1/transactions/:id/boleto',
    {
      config: {
        access: { auth: 'api_key', scopes: ['transactions:read', 'boleto:write'], idempotencyKey: true },
      },
      schema: {
        operationId: 'updateBoletoDueDate',
        summary: 'Change the due date of an open boleto',
        description:
          "Requires Idempotency-Key. Scopes transactions:read plus boleto:write. Only a pending boleto (else 409 conflict); the date must be today to today+365 in America/Sao_Paulo (422 validation_error); the same date answers 200 unchanged. No new charge. One change at a time per boleto: while another change of the same boleto is being sent or awaits the provider's confirmation, a request with any key and any date is 409 change_in_progress and nothing is sent. Sent with the provider's change command: 200 with the new `boleto_due_date`, line, barcode and `boleto_pix_expires_at`; a simulated boleto with `cancel_after_due` gets its new `expires_at`. The provider refuses: 502 provider_rejected with error.transaction_id and diagnostics, date kept. The answer is uncertain: 202 with the date unchanged; the change is never sent again: asking again with the same date (any key) or the reconciler only reads the provider, and records the change once the provider shows it; if a day of reads still shows the old date, the change is dropped as not applied and may be requested again. Replays: 200 with `Idempotency-Replayed: true`.",
        params: idParams,
        body: dueDateBody,
        response: {
          200: dataEnvelope(transactionView),
          202: dataEnvelope(transactionView),
          ...errorResponses(400, 401, 403, 404, 409, 422, 429, 502),
        },
      },
    },
    async (request, reply) => {
      const { principal, row } = await ownTransaction(request);
      const outcome = await changeBoletoDueDate(
        changeContext(),
        {
          scope: principal.tenantId,
          livemode: principal.livemode,
          key: idempotencyKeyOf(request),
          route: '/v1/transactions/{id}/boleto',
          transactionId: row.id,
          body: { due_date: request.body.due_date },
          dueDate: request.body.due_date,
        },
        eventMetadata(request),
      );
      return changeAnswer(row.id, outcome, reply);
    },
  );
}
