import { transaction } from '../../aggregates/transaction.ts';
import { handleCommand } from '../../commands/command-handler.ts';
import type { AppContext } from '../../commands/context.ts';
import { foldStream } from '../../commands/fold-stream.ts';
import { openAccount } from '../../commands/transactions/refund/payout.ts';
import { transactionRouteHelpers } from '../../commands/transactions/shared/route-helpers.ts';
import { transactionStream } from '../../commands/transactions/shared/stream.ts';
import { findTransactionRow, transactionView } from '../../commands/transactions/view.ts';
import { dataEnvelope, errorResponses, idParams, listEnvelope } from '../../contract/envelopes.ts';
import {
  cancelRefundBody,
  completeRefundBody,
  refundBankAccountView,
  refundQueueItem,
  refundQueueQuery,
} from '../../contract/refunds.ts';
import { ApiError } from '../errors.ts';
import { eventMetadata } from '../request-metadata.ts';
import type { HttpServer } from '../server.ts';

/**
 * The panel's refunds awaiting an operator (issue 22 item 4, SPEC 4.8): a boleto paid by boleto whose money
 * goes back by a transfer a person makes (no payout through the provider, or a transfer the bank
 * returned). A super_admin lists them, reads the payer's bank account (each read recorded on the charge's
 * history before the data is answered), and completes one with its evidence (refunded) or cancels it with
 * a reason (refund failed); either destroys the account's key. Exactly once: both are decisions on the
 * charge's stream, so a second completion, or a completion racing a cancellation, is 409 conflict.
 */
export function registerRefundRoutes(app: HttpServer, ctx: AppContext): void {
  const { deps, decide, currentView } = transactionRouteHelpers(ctx);
  const access = { auth: 'session', roles: ['super_admin'] } as const;

  const chargeOf = async (id: string) => {
    const row = await findTransactionRow(ctx, id);
    if (!row) throw new ApiError('not_found', 'The transaction does not exist.');
    return row;
  };

  app.get(
    '/admin/refunds',
    {
      config: { access },
      schema: {
        operationId: 'listRefundsAwaitingOperator',
        summary: 'List refunds awaiting an operator (panel)',
        description:
          'Refunds of boletos paid by boleto that a person must complete: not paid out through the provider, or paid out and returned by the bank. Oldest first. super_admin only.',
        querystring: refundQueueQuery,
        response: { 200: listEnvelope(refundQueueItem), ...errorResponses(401, 403, 422) },
      },
    },
    async (request) => {
      const { limit, offset, livemode } = request.query;
      let query = ctx.db
        .selectFrom('transactions')
        .select([
          'id',
          'tenant_id',
          'livemode',
          'method',
          'amount',
          'paid_with',
          'refund_status',
          'updated_at',
        ])
        .where('refund_route', '=', 'operator')
        .where('status', '=', 'paid')
        .where('refund_status', 'in', ['pending', 'failed']);
      if (livemode !== undefined) query = query.where('livemode', '=', livemode);
      const rows = await query.orderBy('updated_at').orderBy('id').limit(limit).offset(offset).execute();
      return {
        data: rows.map((r) => ({
          transaction_id: r.id,
          tenant_id: r.tenant_id,
          livemode: r.livemode,
          method: r.method,
          amount: Number(r.amount),
          paid_with: r.paid_with,
          refund: { status: r.refund_status as 'pending' | 'failed' },
          updated_at: new Date(r.updated_at).toISOString(),
        })),
        meta: { limit, offset, count: rows.length },
      };
    },
  );

  app.get(
    '/admin/refunds/:id/bank-account',
    {
      config: { access },
      schema: {
        operationId: 'readRefundBankAccount',
        summary: "Read the payer's bank account of a pending refund (panel)",
        description:
          "The account the payer gave for the refund of a boleto paid by boleto. super_admin only; every read is recorded on the charge's history before the account is answered. 404 once the refund ended or 90 days passed (the account is destroyed).",
        params: idParams,
        response: { 200: dataEnvelope(refundBankAccountView), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const row = await chargeOf(request.params.id);
      const state = await foldStream(deps(), transaction, transactionStream(row.id));
      if (state.status === 'none' || state.refundVault === null) {
        throw new ApiError('not_found', 'No refund of this charge holds a bank account.');
      }
      const account = await openAccount({ vault: { db: ctx.db, config: ctx.config }, deps: deps() }, state);
      if (account === null) {
        throw new ApiError(
          'not_found',
          'The bank account was destroyed: the refund ended or 90 days passed.',
        );
      }
      // Recorded before it is shown: a read that cannot be recorded is not answered.
      await handleCommand(
        deps(),
        transaction,
        transactionStream(row.id),
        { kind: 'view_refund_bank_account' },
        { metadata: eventMetadata(request), retryOnConflict: true },
      );
      reply.header('cache-control', 'no-store');
      return { data: { transaction_id: row.id, bank_account: account, hmac: state.refundVault.hmac } };
    },
  );

  app.post(
    '/admin/refunds/:id/complete',
    {
      config: { access },
      schema: {
        operationId: 'completeRefund',
        summary: 'Complete a refund with its evidence (panel)',
        description:
          'Records that a person returned the whole amount to the payer outside the provider: the evidence (end-to-end id or receipt, date, amount). The charge becomes refunded and the bank account is destroyed. Only a refund awaiting an operator (else 409 conflict; a second completion is 409); the amount must be the charge amount (422). super_admin only.',
        params: idParams,
        body: completeRefundBody,
        response: { 200: dataEnvelope(transactionView), ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request) => {
      const row = await chargeOf(request.params.id);
      await decide(request, row, { kind: 'complete_refund', evidence: request.body.evidence });
      return { data: await currentView(row.id) };
    },
  );

  app.post(
    '/admin/refunds/:id/cancel',
    {
      config: { access },
      schema: {
        operationId: 'cancelRefund',
        summary: 'Cancel a refund awaiting an operator (panel)',
        description:
          'Closes a refund awaiting an operator without returning money, with a reason: refund.status becomes failed, the charge stays paid, the bank account is destroyed. A new refund may then be requested. Only a refund awaiting an operator (else 409 conflict). super_admin only.',
        params: idParams,
        body: cancelRefundBody,
        response: { 200: dataEnvelope(transactionView), ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request) => {
      const row = await chargeOf(request.params.id);
      await decide(request, row, { kind: 'cancel_refund', reason: request.body.reason });
      return { data: await currentView(row.id) };
    },
  );
}
