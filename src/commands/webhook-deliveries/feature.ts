import type { Feature } from '../feature.ts';
import { callbackSecretRoute } from './callback-secret/route.ts';
import { getRoute } from './get/route.ts';
import { listRoute } from './list/route.ts';
import { resendRoute } from './resend/route.ts';

/**
 * Webhook deliveries in the panel (SPEC 6; issue 6 item 5): the outbox of transaction events, its attempts,
 * resend and the callback signing secret. No events of its own; the outbox is written by the transactions
 * feature's projection (it must follow the transactions read model in the same statement).
 */
export const webhookDeliveriesFeature: Feature = {
  name: 'webhook-deliveries',
  tag: 'Webhooks',
  events: [],
  projections: {},
  routes: [listRoute, getRoute, resendRoute, callbackSecretRoute],
};
