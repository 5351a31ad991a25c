import { ApiError } from '../../../aggregates/errors.ts';
import { transaction } from '../../../aggregates/transaction.ts';
import {
  cancelRefund,
  completeRefund,
  listRefundsAwaitingOperator,
  readRefundBankAccount,
} from '../../../contract/operations/transactions.ts';
import { Answer, bind } from '../../bind.ts';
import { handleCommand } from '../../command-handler.ts';
import type { AppContext } from '../../context.ts';
import { foldStream } from '../../fold-stream.ts';
import { page } from '../../page.ts';
import { openAccount } from '../refund/payout.ts';
import { transactionRouteHelpers } from '../shared/route-helpers.ts';
import { transactionStream } from '../shared/stream.ts';
import { findTransactionRow } from '../view.ts';

async function chargeOf(ctx: AppContext, id: string) {
  const row = await findTransactionRow(ctx, id);
  if (!row) throw new ApiError('not_found', 'The transaction does not exist.');
  return row;
}

/**
 * The panel's refunds awaiting an operator (issue 22 item 4, SPEC 4.8): a boleto paid by boleto whose money
 * goes back by a transfer a person makes (no payout through the provider, or a transfer the bank
 * returned). A super_admin lists them, reads the payer's bank account (each read recorded on the charge's
 * history before the data is answered), and completes one with its evidence (refunded) or cancels it with
 * a reason (refund failed); either destroys the account's key. Exactly once: both are decisions on the
 * charge's stream, so a second completion, or a completion racing a cancellation, is 409 conflict.
 */
export const refundQueueRoutes = [
  bind(listRefundsAwaitingOperator, async (call, ctx) => {
    const { limit, offset, livemode } = call.query;
    let query = ctx.db
      .selectFrom('transactions')
      .select(['id', 'tenant_id', 'livemode', 'method', 'amount', 'paid_with', 'refund_status', 'updated_at'])
      .where('refund_route', '=', 'operator')
      .where('status', '=', 'paid')
      .where('refund_status', 'in', ['pending', 'failed']);
    if (livemode !== undefined) query = query.where('livemode', '=', livemode);
    const rows = await query.orderBy('updated_at').orderBy('id').limit(limit).offset(offset).execute();
    return page(
      rows.map((r) => ({
        transaction_id: r.id,
        tenant_id: r.tenant_id,
        livemode: r.livemode,
        method: r.method,
        amount: Number(r.amount),
        paid_with: r.paid_with,
        refund: { status: r.refund_status as 'pending' | 'failed' },
        updated_at: new Date(r.updated_at).toISOString(),
      })),
      { limit, offset },
    );
  }),
  bind(readRefundBankAccount, async (call, ctx) => {
    const { deps } = transactionRouteHelpers(ctx);
    const row = await chargeOf(ctx, call.params.id);
    const state = await foldStream(deps(), transaction, transactionStream(row.id));
    if (state.status === 'none' || state.refundVault === null) {
      throw new ApiError('not_found', 'No refund of this charge holds a bank account.');
    }
    const account = await openAccount({ vault: { db: ctx.db, config: ctx.config }, deps: deps() }, state);
    if (account === null) {
      throw new ApiError('not_found', 'The bank account was destroyed: the refund ended or 90 days passed.');
    }
    // Recorded before it is shown: a read that cannot be recorded is not answered.
    await handleCommand(
      deps(),
      transaction,
      transactionStream(row.id),
      { kind: 'view_refund_bank_account' },
      { metadata: call.metadata(), retryOnConflict: true },
    );
    return new Answer(
      200,
      { data: { transaction_id: row.id, bank_account: account, hmac: state.refundVault.hmac } },
      { 'cache-control': 'no-store' },
    );
  }),
  bind(completeRefund, async (call, ctx) => {
    const { decide, currentView } = transactionRouteHelpers(ctx);
    const row = await chargeOf(ctx, call.params.id);
    await decide(call, row, { kind: 'complete_refund', evidence: call.body.evidence });
    return { data: await currentView(row.id) };
  }),
  bind(cancelRefund, async (call, ctx) => {
    const { decide, currentView } = transactionRouteHelpers(ctx);
    const row = await chargeOf(ctx, call.params.id);
    await decide(call, row, { kind: 'cancel_refund', reason: call.body.reason });
    return { data: await currentView(row.id) };
  }),
];
