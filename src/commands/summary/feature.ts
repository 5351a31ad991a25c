import { summaryProjection } from '../../projections/summary.ts';
import type { Feature } from '../feature.ts';
import { getRoute } from './get/route.ts';

/** The panel's summary of charges (SPEC 4.14): an async rollup of the transaction events, no events of its own. */
export const summaryFeature: Feature = {
  name: 'summary',
  tag: 'Panel: reports',
  events: [],
  projections: { async: [summaryProjection] },
  routes: [getRoute],
};
