import { authorizationEvents } from '../../aggregates/pix-automatic-authorization.ts';
import type { Feature } from '../feature.ts';

/**
 * Pix Automatic (issue 27; SPEC 2.6, 3.2, 4.11; docs/decisions.md "Pix Automatic (issue 27): authorizations"):
 * the payer's authorizations of recurring debits, created, read, refreshed, simulated and revoked through
 * the API; the expiry job ends those not approved within 24 hours.
 */
export const pixAutomaticFeature: Feature = {
  name: 'pix-automatic',
  tag: 'Pix Automatic',
  events: authorizationEvents,
  projections: {},
  routes: [],
};
