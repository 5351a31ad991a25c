import { webhookEndpointEvents } from '../../aggregates/webhook-endpoint.ts';
import { webhookEndpointsProjection } from '../../projections/webhook-endpoints.ts';
import type { Feature } from '../feature.ts';
import { createRoute } from './create/route.ts';
import { deleteRoute } from './delete/route.ts';
import { getRoute } from './get/route.ts';
import { listRoute } from './list/route.ts';
import { rotateSecretRoute } from './rotate-secret/route.ts';
import { secretRoute } from './secret/route.ts';
import { updateRoute } from './update/route.ts';

/**
 * Webhook endpoints registered in the panel (SPEC 6, 5.7). A receiver's 410 Gone disables one through
 * ./disable-gone, triggered by the delivery worker, not a route.
 */
export const webhookEndpointsFeature: Feature = {
  name: 'webhook-endpoints',
  tag: 'Webhooks',
  events: webhookEndpointEvents,
  projections: { inline: [webhookEndpointsProjection] },
  routes: [createRoute, listRoute, getRoute, secretRoute, rotateSecretRoute, updateRoute, deleteRoute],
};
