import { sessionEvents } from '../../aggregates/session.ts';
import { sessionsProjection } from '../../projections/sessions.ts';
import type { Feature } from '../feature.ts';
import { loginRoute } from './login/route.ts';
import { logoutRoute } from './logout/route.ts';

/** Panel login and logout (SPEC 5.6, 5.9, 8). */
export const sessionsFeature: Feature = {
  name: 'sessions',
  tag: 'Panel: sessions',
  events: sessionEvents,
  projections: { inline: [sessionsProjection], reference: [sessionsProjection] },
  routes: [loginRoute, logoutRoute],
};
