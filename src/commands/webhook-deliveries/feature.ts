import { webhookOutboxProjection } from '../../projections/webhook-outbox.ts';
import type { Feature } from '../feature.ts';
import { callbackSecretRoute } from './callback-secret/route.ts';
import { getRoute } from './get/route.ts';
import { listRoute } from './list/route.ts';
import { resendRoute } from './resend/route.ts';

/**
 * Webhook deliveries in the panel (SPEC 6; issue 6 item 5): the outbox of transaction events, its attempts,
 * resend and the callback signing secret. No events of its own. Its outbox projection must run after the
 * endpoints' (webhook-endpoints feature): a charge's deliveries go to the endpoints registered before its event.
 */
export const webhookDeliveriesFeature: Feature = {
  name: 'webhook-deliveries',
  events: [],
  projections: { inline: [webhookOutboxProjection] },
  routes: [listRoute, getRoute, resendRoute, callbackSecretRoute],
};
