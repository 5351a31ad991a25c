import { DomainError } from '../../../aggregates/decider.ts';
import { issueCycleCharge } from './charge.ts';
import type { CycleIssuer } from './outcome.ts';

/**
 * A card cycle (SPEC 4.10): charged on its due day (advance 0) by the token sealed to the subscription at
 * registration. createCharge refuses it before reservation (so the cycle is retried, then skipped overdue,
 * never charged) when the card expired or the route now leads to another provider account than the one it
 * was registered with.
 */
export const issueCardCycle: CycleIssuer = (ctx, c, metadata) => {
  const card = c.subscription.card;
  if (card === null) {
    throw new DomainError('validation_error', 'The subscription has no registered card.', {
      param: 'credit_card',
    });
  }
  const subscriptionId = c.subscription.created.subscription_id;
  return issueCycleCharge(
    ctx,
    c,
    {
      method: 'credit_card',
      card: {
        installments: 1,
        masked: card.card,
        fingerprint: null,
        secret: { kind: 'subscription', subscriptionId, card },
      },
    },
    metadata,
  );
};
