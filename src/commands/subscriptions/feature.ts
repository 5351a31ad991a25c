import { subscriptionEvents } from '../../aggregates/subscription.ts';
import { authorizationUseEvents } from '../../aggregates/subscription-authorization-use.ts';
import { cycleEvents } from '../../aggregates/subscription-cycle.ts';
import { subscriptionCyclesProjection, subscriptionsProjection } from '../../projections/subscriptions.ts';
import type { Feature } from '../feature.ts';
import { changeRoute } from './change/route.ts';
import { createRoute } from './create/route.ts';
import { cyclesRoute } from './cycles/route.ts';
import { deleteRoute } from './delete/route.ts';
import { getRoute } from './get/route.ts';
import { listRoute } from './list/route.ts';
import { subscriptionSchedulerJob } from './schedule/job.ts';

/**
 * Subscriptions and their cycles (issue 26; SPEC 2.4, 2.5, 3.3, 3.4, 4.10; docs/decisions.md "Subscriptions
 * (issue 26)"): the API creates, reads and changes them; the scheduler job issues each cycle once.
 */
export const subscriptionsFeature: Feature = {
  name: 'subscriptions',
  tag: 'Subscriptions',
  events: [...subscriptionEvents, ...cycleEvents, ...authorizationUseEvents],
  projections: { inline: [subscriptionsProjection, subscriptionCyclesProjection] },
  routes: [createRoute, listRoute, getRoute, cyclesRoute, changeRoute, deleteRoute],
  jobs: [subscriptionSchedulerJob()],
};
