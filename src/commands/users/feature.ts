import { userEvents } from '../../aggregates/user.ts';
import { usersProjection } from '../../projections/users.ts';
import type { Feature } from '../feature.ts';
import { changePasswordRoute } from './change-password/route.ts';
import { createRoute } from './create/route.ts';
import { listRoute } from './list/route.ts';
import { reactivateRoute } from './reactivate/route.ts';
import { suspendRoute } from './suspend/route.ts';

/** Panel users (SPEC 2.7 roles, 5.6 sessions, 5.7 "Tenants, types, users"). */
export const usersFeature: Feature = {
  name: 'users',
  tag: 'Panel: users',
  events: userEvents,
  projections: { inline: [usersProjection], reference: [usersProjection] },
  routes: [createRoute, listRoute, suspendRoute, reactivateRoute, changePasswordRoute],
};
