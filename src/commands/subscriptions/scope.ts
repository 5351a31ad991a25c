import type { Scope } from '../../aggregates/access.ts';
import type { SubscriptionMethod } from '../../aggregates/subscription.ts';

/** SPEC 4.10, 5.3: the write scope a subscription of each method needs, to create it and to change it. */
export const SUBSCRIPTION_METHOD_SCOPE: Readonly<Record<SubscriptionMethod, Scope>> = {
  pix: 'pix:write',
  pix_automatic: 'pix:write',
  boleto: 'boleto:write',
  credit_card: 'credit_card:write',
};
