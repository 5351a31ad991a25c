import { apiKeyEvents } from '../../aggregates/api-key.ts';
import { apiKeysProjection } from '../../projections/api-keys.ts';
import type { Feature } from '../feature.ts';
import { issueRoute } from './issue/route.ts';
import { listRoute } from './list/route.ts';
import { revokeRoute } from './revoke/route.ts';

/** Panel API keys (SPEC 2.7, 4 common rules, 5.2-5.4, 5.7). */
export const apiKeysFeature: Feature = {
  name: 'api-keys',
  tag: 'Panel: keys',
  events: apiKeyEvents,
  projections: { inline: [apiKeysProjection], reference: [apiKeysProjection] },
  routes: [issueRoute, listRoute, revokeRoute],
};
