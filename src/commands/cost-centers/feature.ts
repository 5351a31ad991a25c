import { costCenterEvents } from '../../aggregates/cost-center.ts';
import { costCentersProjection } from '../../projections/cost-centers.ts';
import type { Feature } from '../feature.ts';
import { createRoute } from './create/route.ts';
import { getRoute } from './get/route.ts';
import { listRoute } from './list/route.ts';
import { updateRoute } from './update/route.ts';

/** Public cost centers (SPEC 4.12, 5.3, 5.4; docs/decisions.md "Charges"): classify a tenant's charges. */
export const costCentersFeature: Feature = {
  name: 'cost-centers',
  tag: 'Cost centers',
  events: costCenterEvents,
  projections: { inline: [costCentersProjection] },
  routes: [listRoute, getRoute, createRoute, updateRoute],
};
