import { paymentSettingsEvents } from '../../aggregates/payment-settings.ts';
import type { Feature } from '../feature.ts';
import { getRoute } from './get/route.ts';
import { updateRoute } from './update/route.ts';

/**
 * The global production payments control (SPEC 2.7, 4.14, 5.8). No read model: every read folds its one
 * stream, so a change applies at once on every instance.
 */
export const paymentSettingsFeature: Feature = {
  name: 'payment-settings',
  tag: 'Panel: providers',
  events: paymentSettingsEvents,
  projections: {},
  routes: [getRoute, updateRoute],
};
