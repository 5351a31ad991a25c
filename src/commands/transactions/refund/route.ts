import { refundTransaction as refundTransactionOperation } from '../../../contract/operations/transactions.ts';
import { bind } from '../../bind.ts';
import { changeRouteHelpers, transactionRouteHelpers } from '../shared/route-helpers.ts';
import { refundTransaction } from './handler.ts';

/**
 * `POST /v1/transactions/{id}/refund` (SPEC 3.1, 4.8): an idempotent change sent to the charge's provider;
 * `transactions:read` plus the method's write scope; a descendant's charge is 403 forbidden (SPEC 5.5).
 */
export const refundRoutes = [
  bind(refundTransactionOperation, async (call, ctx) => {
    const { requireMethodScope, ownTransaction } = transactionRouteHelpers(ctx);
    const { changeContext, changeAnswer } = changeRouteHelpers(ctx);
    const { principal, row } = await ownTransaction(call);
    requireMethodScope(call, row);
    const bank = call.body?.bank_account;
    const outcome = await refundTransaction(
      changeContext(),
      {
        scope: principal.tenantId,
        livemode: principal.livemode,
        key: call.idempotencyKey(),
        route: '/v1/transactions/{id}/refund',
        transactionId: row.id,
        body: bank ? { bank_account: bank } : {},
        bankAccount: bank ?? null,
      },
      call.metadata(),
    );
    return changeAnswer(row.id, outcome);
  }),
];
