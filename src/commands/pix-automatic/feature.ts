import { authorizationEvents } from '../../aggregates/pix-automatic-authorization.ts';
import { debitReservationEvents } from '../../aggregates/pix-automatic-debit.ts';
import { pixAutomaticDebitPollsProjection } from '../../projections/pix-automatic-debit-polls.ts';
import type { Feature } from '../feature.ts';
import { createDebitRoutes } from './charges/create/route.ts';
import { debitPollerJob } from './debits/poll/job.ts';

/**
 * Pix Automatic (issue 27; SPEC 2.6, 3.2, 4.11; docs/decisions.md "Pix Automatic (issue 27): authorizations"):
 * the payer's authorizations of recurring debits, created, read, refreshed, simulated and revoked through
 * the API; the expiry job ends those not approved within 24 hours.
 */
export const pixAutomaticFeature: Feature = {
  name: 'pix-automatic',
  tag: 'Pix Automatic',
  events: [...authorizationEvents, ...debitReservationEvents],
  // Debits (issue 27 items 2-3): the due-date reservation, the poller's schedule, the charge route and job.
  projections: { inline: [pixAutomaticDebitPollsProjection] },
  routes: [...createDebitRoutes],
  jobs: [debitPollerJob()],
};
