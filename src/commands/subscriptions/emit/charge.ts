import type { EventMetadata } from '../../../events/event-store.ts';
import type { CardCharge } from '../../credit-card/card-charge.ts';
import { type BoletoInput, createCharge } from '../../transactions/create/handler.ts';
import {
  CYCLE_ROUTE,
  type CycleToIssue,
  cycleChargeBody,
  cycleIdempotencyKey,
  type EmitContext,
} from './context.ts';
import { type Issued, issuedFromOutcome } from './outcome.ts';

/**
 * A boleto or card cycle's charge (SPEC 4.10), made the one way charges are made (`createCharge`: routing,
 * production controls, the reservation, idempotency) with the subscription's tenant and mode under the
 * cycle's key: a second worker or a replay after a crash gets the same charge, never a second call.
 * A DomainError thrown here was raised before the reservation (the caller records it as `last_error`).
 */
export async function issueCycleCharge(
  ctx: EmitContext,
  c: CycleToIssue,
  what: { method: 'boleto'; boleto: BoletoInput } | { method: 'credit_card'; card: CardCharge },
  metadata: EventMetadata,
): Promise<Issued> {
  const s = c.subscription.created;
  const outcome = await createCharge(
    ctx,
    {
      tenantId: s.tenant_id,
      livemode: s.livemode,
      method: what.method,
      idempotencyKey: cycleIdempotencyKey(s.subscription_id, c.dueDate),
      route: CYCLE_ROUTE,
      body: { ...cycleChargeBody(c), ...(what.method === 'boleto' ? { boleto: what.boleto } : {}) },
      ...(what.method === 'credit_card' ? { card: what.card } : {}),
      inheritedCostCenter: true,
    },
    metadata,
  );
  return issuedFromOutcome(ctx, outcome);
}
