import type { Feature } from '../feature.ts';
import { createRoute } from './create/route.ts';
import { issueKeyRoute } from './issue-key/route.ts';
import { listRoute } from './list/route.ts';

/**
 * Public subtenants (SPEC 4.13, 5.3-5.5; docs/decisions.md "Subtenants (issue 28 item 1)"). A subtenant is
 * a tenant and its key an API key: their events and read models are the tenants' and the keys' features'
 * (audit actions `tenant.created`, `api_key.created`, with the calling key as actor).
 */
export const subtenantsFeature: Feature = {
  name: 'subtenants',
  tag: 'Subtenants',
  events: [],
  projections: {},
  routes: [createRoute, listRoute, issueKeyRoute],
};
