import { routingRuleEvents } from '../../aggregates/routing-rule.ts';
import { routingRulesProjection } from '../../projections/routing-rules.ts';
import type { Feature } from '../feature.ts';
import { createRoute } from './create/route.ts';
import { listRoute } from './list/route.ts';
import { updateRoute } from './update/route.ts';

/**
 * Routing rules configured in the panel (SPEC 2.7, 2.8, 4.14, 5.7): which provider a new charge goes to.
 * Charge routing reads their read model before it decides, so it is a reference projection too.
 */
export const routingRulesFeature: Feature = {
  name: 'routing-rules',
  tag: 'Panel: providers',
  events: routingRuleEvents,
  projections: { inline: [routingRulesProjection], reference: [routingRulesProjection] },
  routes: [createRoute, listRoute, updateRoute],
};
