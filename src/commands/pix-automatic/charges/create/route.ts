import { DomainError } from '../../../../aggregates/decider.ts';
import { ApiError } from '../../../../aggregates/errors.ts';
import { createPixAutomaticCharge } from '../../../../contract/pix-automatic-charges.ts';
import { Answer, bind, replayed } from '../../../bind.ts';
import { findTransactionRow, toTransactionView } from '../../../transactions/view.ts';
import { createDebit } from './handler.ts';

/**
 * `POST /v1/pix-automatic/charges` (SPEC 4.11): the answers of POST /v1/pix (SPEC 3.1): 201 scheduled
 * (`pending`), 202 unknown, 502 provider_rejected with error.transaction_id, 200 replay with
 * `Idempotency-Replayed: true` (202 while still processing).
 */
export const createDebitRoutes = [
  bind(createPixAutomaticCharge, async (call, ctx) => {
    const key = call.apiKey();
    let outcome: Awaited<ReturnType<typeof createDebit>>;
    try {
      outcome = await createDebit(
        ctx,
        {
          tenantId: key.tenantId,
          livemode: key.livemode,
          idempotencyKey: call.idempotencyKey(),
          body: call.body,
        },
        call.metadata(),
      );
    } catch (error) {
      if (error instanceof DomainError && error.code === 'reconciliation_required') {
        const id = error.details.transaction_id;
        throw new ApiError(
          'reconciliation_required',
          'The debit was reserved but its result was not saved; keep the key and do not reprocess.',
          typeof id === 'string' ? { transaction_id: id } : {},
          503,
        );
      }
      throw error;
    }
    // DESIGN.md "A command answers from its own fold": in async mode the read model may trail.
    const row = await findTransactionRow(ctx, outcome.transactionId);
    if (!row) throw new Error(`transaction ${outcome.transactionId} missing from its stream`);
    const view = await toTransactionView(ctx, row);
    if (outcome.kind === 'replayed')
      return replayed(view.status === 'processing' ? 202 : 200, { data: view });
    if (view.status === 'failed') {
      throw new ApiError('provider_rejected', 'The provider refused the debit.', {
        transaction_id: view.id,
        provider_error_code: view.provider_error_code,
        provider_error_message: view.provider_error_message,
        provider_http_status: view.provider_http_status,
      });
    }
    return new Answer(view.status === 'unknown' || view.status === 'processing' ? 202 : 201, { data: view });
  }),
];
