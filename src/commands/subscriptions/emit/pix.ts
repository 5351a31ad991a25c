import { endOfDay } from '../../../aggregates/subscription-calendar.ts';
import { openCheckout } from '../../checkouts/create/handler.ts';
import { CYCLE_ROUTE, cycleChargeBody, cycleIdempotencyKey } from './context.ts';
import type { CycleIssuer } from './outcome.ts';

/**
 * A Pix cycle (SPEC 4.10, 2.5): a checkout link offering Pix, open until the end of the due day in Brasilia
 * time; the payer's choice on it makes the charge (with the subscription's cost center at that moment), and
 * a Pix that expires earlier leaves the link open to pay again (docs/decisions.md "Hosted checkout": an
 * expired charge sends the checkout back to `open`). The cycle is issued with the link; its transaction
 * appears once the payer chooses to pay.
 */
export const issuePixCycle: CycleIssuer = async (ctx, c, metadata) => {
  const s = c.subscription.created;
  const { folded } = await openCheckout(
    ctx,
    { tenantId: s.tenant_id, livemode: s.livemode },
    {
      body: { methods: ['pix'], ...cycleChargeBody(c) },
      idempotencyKey: cycleIdempotencyKey(s.subscription_id, c.dueDate),
      route: `${CYCLE_ROUTE}/pix`,
      deadline: endOfDay(c.dueDate),
      subscriptionId: s.subscription_id,
    },
    metadata,
  );
  return { kind: 'issued', transactionId: null, checkoutId: folded.state.created.checkout_id };
};
