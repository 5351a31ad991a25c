import { ApiError } from '../../../aggregates/errors.ts';
import {
  simulatePanelTransaction,
  simulateTransaction as simulateTransactionOperation,
} from '../../../contract/operations/transactions.ts';
import { bind, type Call } from '../../bind.ts';
import type { AppContext } from '../../context.ts';
import { simulatorEnabled } from '../../providers/bootstrap-simulator.ts';
import { requireTenantInTree } from '../../tenancy.ts';
import { type TransactionRow, transactionRouteHelpers } from '../shared/route-helpers.ts';
import { findTransactionRow } from '../view.ts';
import { simulateTransaction } from './handler.ts';

async function simulate(ctx: AppContext, call: Call, row: TransactionRow, status: 'paid' | 'expired') {
  const { deps, currentView } = transactionRouteHelpers(ctx);
  if (!simulatorEnabled(ctx.config)) throw new ApiError('simulator_disabled');
  await simulateTransaction(deps(), row.id, status, call.metadata());
  return { data: await currentView(row.id) };
}

/**
 * `POST /v1/transactions/{id}/simulate` and the panel's `POST /admin/transactions/{id}/simulate` (SPEC 3.1,
 * 4.7): the decider's `simulate_paid` / `simulate_expired` (409 simulation_not_allowed unless a pending
 * simulated charge). A live key is refused with 409 simulation_not_allowed before the transaction is read
 * ("Test key only"); ENABLE_SIMULATOR off is 422 simulator_disabled. The public route needs
 * `transactions:read` plus the method's write scope; a descendant's charge is 403 forbidden (SPEC 5.5).
 */
export const simulateRoutes = [
  bind(simulateTransactionOperation, async (call, ctx) => {
    const principal = call.apiKey();
    if (principal.livemode) {
      throw new ApiError(
        'simulation_not_allowed',
        'Only a test key can simulate a payment; a production charge is paid by its payer.',
      );
    }
    // SPEC 5.5: simulating changes stored state, so a descendant's charge is 403 like refund.
    const { requireMethodScope, ownTransaction } = transactionRouteHelpers(ctx);
    const { row } = await ownTransaction(call);
    requireMethodScope(call, row);
    return simulate(ctx, call, row, call.body.status);
  }),
  bind(simulatePanelTransaction, async (call, ctx) => {
    const principal = call.session();
    const row = await findTransactionRow(ctx, call.params.id);
    if (!row) throw new ApiError('not_found', 'The transaction does not exist.');
    await requireTenantInTree(ctx.db, principal, row.tenant_id);
    return simulate(ctx, call, row, call.body.status);
  }),
];
