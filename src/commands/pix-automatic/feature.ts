import { authorizationEvents } from '../../aggregates/pix-automatic-authorization.ts';
import { pixAutomaticAuthorizationsProjection } from '../../projections/pix-automatic-authorizations.ts';
import type { Feature } from '../feature.ts';
import { createRoute } from './authorizations/create/route.ts';
import { authorizationExpiryJob } from './authorizations/expire/job.ts';
import { getRoute } from './authorizations/get/route.ts';
import { listRoute } from './authorizations/list/route.ts';
import { refreshRoute } from './authorizations/refresh/route.ts';
import { revokeRoute } from './authorizations/revoke/route.ts';
import { simulateRoute } from './authorizations/simulate/route.ts';

/**
 * Pix Automatic (issue 27; SPEC 2.6, 3.2, 4.11; docs/decisions.md "Pix Automatic (issue 27): authorizations"):
 * the payer's authorizations of recurring debits, created, read, refreshed, simulated and revoked through
 * the API; the expiry job ends those not approved within 24 hours and closes them at the provider.
 */
export const pixAutomaticFeature: Feature = {
  name: 'pix-automatic',
  tag: 'Pix Automatic',
  events: authorizationEvents,
  projections: { inline: [pixAutomaticAuthorizationsProjection] },
  // In this order the generated collection simulates the payer, refreshes and reads before it revokes (GET and
  // DELETE share a path, so they are listed together, last).
  routes: [createRoute, listRoute, simulateRoute, refreshRoute, getRoute, revokeRoute],
  jobs: [authorizationExpiryJob()],
};
