import { checkoutEvents } from '../../aggregates/checkout.ts';
import { checkoutsProjection } from '../../projections/checkouts.ts';
import type { Feature } from '../feature.ts';
import { createRoute } from './create/route.ts';
import { checkoutFollowJob } from './follow/job.ts';
import { getRoute } from './get/route.ts';
import { listRoute } from './list/route.ts';

/**
 * Hosted checkouts (issue 25; SPEC 2.7, 3.5, 4.9; docs/decisions.md "Hosted checkout (issue 25)"): the API
 * creates and reads them; the payer's page (raw routes, src/http/routes/checkout-page.ts) makes their charges;
 * the follower job moves them along their charges and deadline.
 */
export const checkoutsFeature: Feature = {
  name: 'checkouts',
  tag: 'Checkouts',
  events: checkoutEvents,
  projections: { inline: [checkoutsProjection] },
  routes: [createRoute, listRoute, getRoute],
  jobs: [checkoutFollowJob()],
};
