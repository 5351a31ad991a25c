import { providerEvents } from '../../aggregates/provider.ts';
import { providersProjection } from '../../projections/providers.ts';
import type { Feature } from '../feature.ts';
import { createRoute } from './create/route.ts';
import { getRoute } from './get/route.ts';
import { listRoute } from './list/route.ts';
import { updateRoute } from './update/route.ts';

/**
 * Payment providers configured in the panel (SPEC 2.7, 4.14, 5.7). Charge routing reads their read model
 * before it decides, so it is a reference projection too.
 */
export const providersFeature: Feature = {
  name: 'providers',
  tag: 'Panel: providers',
  events: providerEvents,
  projections: { inline: [providersProjection], reference: [providersProjection] },
  routes: [createRoute, listRoute, getRoute, updateRoute],
};
