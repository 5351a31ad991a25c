import { DomainError } from '../../../aggregates/decider.ts';
import { ApiError } from '../../../aggregates/errors.ts';
import type { ChargeMethod } from '../../../aggregates/transaction.ts';
import { createBoleto, createPanelBoleto, createPix } from '../../../contract/operations/transactions.ts';
import { Answer, bind, type Call, replayed } from '../../bind.ts';
import type { AppContext } from '../../context.ts';
import type { CardCharge } from '../../credit-card/card-charge.ts';
import { requireTenantActive, requireTenantInTree } from '../../tenancy.ts';
import { findTransactionRow, toTransactionView } from '../view.ts';
import { type ChargeBody, type ChargeOutcome, createCharge } from './handler.ts';

/**
 * Charge creation (SPEC 3.1, 4.1, 4.2; docs/decisions.md "Charges"): `POST /v1/pix`, `POST /v1/boleto` and the
 * panel's `POST /admin/boleto` (and, through `create`, the card feature's `POST /v1/credit-card`), one use case (the panel's boleto is the same creation for a tenant of the
 * user's tree), one handler (./handler.ts). Every 2xx answer, replays included, goes through the
 * operations' compiled serializer (issue 14).
 */
export async function create(
  ctx: AppContext,
  method: ChargeMethod,
  route: string,
  call: Call,
  body: ChargeBody,
  owner: { tenantId: string; livemode: boolean } = call.apiKey(),
  card?: CardCharge,
): Promise<Answer> {
  return answerCreation(ctx, 'charge', () =>
    createCharge(
      ctx,
      {
        tenantId: owner.tenantId,
        livemode: owner.livemode,
        method,
        idempotencyKey: call.idempotencyKey(),
        route,
        body,
        card,
      },
      call.metadata(),
    ),
  );
}

/**
 * The answer of a charge's creation (SPEC 3.1), whichever command made it (a charge, a Pix Automatic debit):
 * 201 created, 202 unknown or still processing, 502 provider_rejected with error.transaction_id, 200 replay
 * with `Idempotency-Replayed: true` (202 while still processing); a reservation whose result was not saved is
 * 503 reconciliation_required with error.transaction_id (keep the key, do not reprocess).
 */
export async function answerCreation(
  ctx: AppContext,
  noun: 'charge' | 'debit',
  make: () => Promise<ChargeOutcome>,
): Promise<Answer> {
  let outcome: ChargeOutcome;
  try {
    outcome = await make();
  } catch (error) {
    if (error instanceof DomainError && error.code === 'reconciliation_required') {
      const id = error.details.transaction_id;
      throw new ApiError(
        'reconciliation_required',
        `The ${noun} was reserved but its result was not saved; keep the key and do not reprocess.`,
        typeof id === 'string' ? { transaction_id: id } : {},
        503,
      );
    }
    throw error;
  }
  // DESIGN.md "A command answers from its own fold": in async mode the read model may not have it yet.
  // A creation brings its fold along (issue 14: no read back); a replay reads the stored record (SPEC 5).
  const row =
    (outcome.kind === 'created' ? outcome.row : undefined) ??
    (await findTransactionRow(ctx, outcome.transactionId));
  if (!row) throw new Error(`transaction ${outcome.transactionId} missing from its stream`);
  const view = await toTransactionView(ctx, row);
  if (outcome.kind === 'replayed') {
    const status: 200 | 202 = view.status === 'processing' ? 202 : 200;
    return replayed(status, { data: view });
  }
  if (view.status === 'failed') {
    throw new ApiError('provider_rejected', `The provider refused the ${noun}.`, {
      transaction_id: view.id,
      provider_error_code: view.provider_error_code,
      provider_error_message: view.provider_error_message,
      provider_http_status: view.provider_http_status,
    });
  }
  const status: 201 | 202 = view.status === 'unknown' || view.status === 'processing' ? 202 : 201;
  return new Answer(status, { data: view });
}

export const createRoutes = [
  bind(createPix, (call, ctx) => create(ctx, 'pix', '/v1/pix', call, call.body)),
  bind(createBoleto, (call, ctx) => create(ctx, 'boleto', '/v1/boleto', call, call.body)),
  bind(createPanelBoleto, async (call, ctx) => {
    const principal = call.session();
    const { tenant_id, ...body } = call.body;
    const tenantId = tenant_id ?? principal.tenantId;
    if (!tenantId) {
      throw new ApiError('validation_error', 'tenant_id is required for a super_admin.', {
        param: 'tenant_id',
      });
    }
    await requireTenantInTree(ctx.db, principal, tenantId);
    await requireTenantActive(ctx.db, tenantId);
    return create(ctx, 'boleto', '/admin/boleto', call, body, { tenantId, livemode: true });
  }),
];
