import { testClockEvents } from '../../aggregates/test-clock.ts';
import { testClocksProjection } from '../../projections/test-clocks.ts';
import type { Feature } from '../feature.ts';
import { advanceRoute } from './advance/route.ts';
import { createRoute } from './create/route.ts';
import { deleteRoute } from './delete/route.ts';
import { getRoute } from './get/route.ts';
import { listRoute } from './list/route.ts';

/**
 * Test clocks (issue 26 item 6; docs/decisions.md "Subscriptions (issue 26)" → "Test clocks"): test-mode
 * time that the integrator moves forward, so a year of a subscription's cycles happens in seconds.
 */
export const testClocksFeature: Feature = {
  name: 'test-clocks',
  tag: 'Subscriptions',
  events: testClockEvents,
  projections: { inline: [testClocksProjection] },
  // Advance before get and delete: /openapi.json lists paths in this order, and the Postman collection
  // runs them so (a clock deleted before its advance would be 404).
  routes: [createRoute, listRoute, advanceRoute, getRoute, deleteRoute],
  jobs: [],
};
