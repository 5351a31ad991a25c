import { tenantEvents } from '../../aggregates/tenant.ts';
import { tenantTypeEvents } from '../../aggregates/tenant-type.ts';
import { tenantsProjection } from '../../projections/tenants.ts';
import type { Feature } from '../feature.ts';
import { createRoute } from './create/route.ts';
import { createTypeRoute } from './create-type/route.ts';
import { getRoute } from './get/route.ts';
import { listRoute } from './list/route.ts';
import { listTypesRoute } from './list-types/route.ts';
import { reactivateRoute } from './reactivate/route.ts';
import { suspendRoute } from './suspend/route.ts';

/** Tenant types and tenants of the panel (SPEC 1, 2.7, 5.5, 5.7, 7). */
export const tenantsFeature: Feature = {
  name: 'tenants',
  tag: 'Panel: tenants',
  events: [...tenantTypeEvents, ...tenantEvents],
  projections: { inline: [tenantsProjection], reference: [tenantsProjection] },
  routes: [createTypeRoute, listTypesRoute, createRoute, listRoute, getRoute, suspendRoute, reactivateRoute],
};
