import { subaccountEvents } from '../../aggregates/subaccount.ts';
import { subaccountsProjection } from '../../projections/subaccounts.ts';
import type { Feature } from '../feature.ts';
import { createRoute } from './create/route.ts';
import { credentialsRoute } from './credentials/route.ts';
import { getRoute } from './get/route.ts';
import { linkRoute } from './link/route.ts';
import { listRoute } from './list/route.ts';
import { subaccountReconcileJob } from './reconcile/job.ts';
import { refreshRoute } from './refresh/route.ts';
import { disableRoute, enableRoute } from './toggle/route.ts';

/**
 * Marketplace subaccount links (SPEC 2.7, 2.8, 3.6, 4.14, 5.7 "Subaccounts": super_admin only); the
 * reconciliation job settles the links left `creating` or `unknown` (SPEC 3.6) by the refresh's consult.
 * Charge routing reads their read model before it decides (route-link.ts), so it is a reference projection too.
 */
export const subaccountsFeature: Feature = {
  name: 'subaccounts',
  tag: 'Panel: subaccounts',
  events: subaccountEvents,
  projections: { inline: [subaccountsProjection], reference: [subaccountsProjection] },
  routes: [
    listRoute,
    getRoute,
    createRoute,
    refreshRoute,
    credentialsRoute,
    linkRoute,
    disableRoute,
    enableRoute,
  ],
  jobs: [subaccountReconcileJob()],
};
