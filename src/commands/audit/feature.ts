import type { Feature } from '../feature.ts';
import { listRoute } from './list/route.ts';

/**
 * The audit log (SPEC 5.7 "Read logs"): a read model of every feature's events, so no events of its own.
 * Its async projection is made in src/commands/index.ts (`auditProjection`): it names each action from the
 * registry of every feature's events, which this manifest cannot import without an import circle. Its
 * replay against the transactions read model (./replay) is run by the CLI, not a route.
 */
export const auditFeature: Feature = {
  name: 'audit',
  tag: 'Panel: reports',
  events: [],
  projections: {},
  routes: [listRoute],
};
