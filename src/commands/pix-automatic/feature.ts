import { authorizationEvents } from '../../aggregates/pix-automatic-authorization.ts';
import { debitReservationEvents } from '../../aggregates/pix-automatic-debit.ts';
import { pixAutomaticAuthorizationsProjection } from '../../projections/pix-automatic-authorizations.ts';
import { pixAutomaticDebitPollsProjection } from '../../projections/pix-automatic-debit-polls.ts';
import type { Feature } from '../feature.ts';
import { createRoute } from './authorizations/create/route.ts';
import { authorizationExpiryJob } from './authorizations/expire/job.ts';
import { getRoute } from './authorizations/get/route.ts';
import { listRoute } from './authorizations/list/route.ts';
import { refreshRoute } from './authorizations/refresh/route.ts';
import { revokeRoute } from './authorizations/revoke/route.ts';
import { simulateRoute } from './authorizations/simulate/route.ts';
import { createDebitRoutes } from './charges/create/route.ts';
import { debitPollerJob } from './debits/poll/job.ts';

/**
 * Pix Automatic (issue 27; SPEC 2.6, 3.2, 4.11; docs/decisions.md "Pix Automatic (issue 27): authorizations"):
 * the payer's authorizations of recurring debits, created, read, refreshed, simulated and revoked through
 * the API; the expiry job ends those not approved within 24 hours and closes them at the provider. Debits
 * (issue 27 items 2-3; docs/decisions.md "Pix Automatic (issue 27): debits and polling"): a due date's
 * reservation, the charge route and the confirmation poller with its schedule read model.
 */
export const pixAutomaticFeature: Feature = {
  name: 'pix-automatic',
  tag: 'Pix Automatic',
  events: [...authorizationEvents, ...debitReservationEvents],
  projections: { inline: [pixAutomaticAuthorizationsProjection, pixAutomaticDebitPollsProjection] },
  // In this order the generated collection simulates the payer, refreshes, schedules a debit of the approved
  // authorization and reads before it revokes (GET and DELETE share a path, so they are listed together, last).
  routes: [createRoute, listRoute, simulateRoute, refreshRoute, ...createDebitRoutes, getRoute, revokeRoute],
  jobs: [authorizationExpiryJob(), debitPollerJob()],
};
