import { notificationEvents } from '../../aggregates/notification.ts';
import { notificationsProjection } from '../../projections/notifications.ts';
import type { Feature } from '../feature.ts';
import { createRoute } from './create/route.ts';
import { listRoute } from './list/route.ts';
import { readRoute } from './read/route.ts';

/**
 * Internal panel notifications (SPEC 2.7, 5.7; docs/decisions.md "Panel notifications, logs and the roles
 * table"): a super_admin publishes, every panel role lists its scope and marks its own receipts.
 */
export const notificationsFeature: Feature = {
  name: 'notifications',
  tag: 'Panel: reports',
  events: notificationEvents,
  projections: { inline: [notificationsProjection] },
  routes: [listRoute, createRoute, readRoute],
};
