import { updateBoletoDueDate } from '../../../contract/operations/transactions.ts';
import { bind } from '../../bind.ts';
import { changeRouteHelpers, transactionRouteHelpers } from '../shared/route-helpers.ts';
import { changeBoletoDueDate } from './handler.ts';

/**
 * `PATCH /v1/transactions/{id}/boleto` (SPEC 4.8): a new due date for an open boleto, an idempotent change
 * sent to the charge's provider; `transactions:read` plus `boleto:write`; own tenant only (SPEC 5.5).
 */
export const changeDueDateRoutes = [
  bind(updateBoletoDueDate, async (call, ctx) => {
    const { ownTransaction } = transactionRouteHelpers(ctx);
    const { changeContext, changeAnswer } = changeRouteHelpers(ctx);
    const { principal, row } = await ownTransaction(call);
    const outcome = await changeBoletoDueDate(
      changeContext(),
      {
        scope: principal.tenantId,
        livemode: principal.livemode,
        key: call.idempotencyKey(),
        route: '/v1/transactions/{id}/boleto',
        transactionId: row.id,
        body: { due_date: call.body.due_date },
        dueDate: call.body.due_date,
      },
      call.metadata(),
    );
    return changeAnswer(row.id, outcome);
  }),
];
