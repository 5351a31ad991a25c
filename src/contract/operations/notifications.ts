import { creationResponses, dataEnvelope, errorResponses, idParams, listEnvelope } from '../envelopes.ts';
import { createNotificationBody, notificationListQuery, notificationView } from '../notifications.ts';
import { operation } from '../operation.ts';

/** Internal panel notifications (SPEC 2.7, 5.7; docs/decisions.md "Panel notifications, logs and the roles table"). */
const NOTIFICATIONS_ROUTE = '/admin/notifications';

export const createNotification = operation({
  method: 'POST',
  path: NOTIFICATIONS_ROUTE,
  access: { auth: 'session', roles: ['super_admin'], idempotencyKey: true },
  schema: {
    operationId: 'createNotification',
    summary: 'Publish an internal notification (super_admin)',
    description:
      'Addressed to one tenant (seen by the panel users of that tenant and of its ancestors) or, with tenant_id null, to every panel user. A tenant that does not exist is 404 not_found. The text cannot be changed afterwards. The same Idempotency-Key with the same body answers 200 with the same notification and Idempotency-Replayed: true; with another body, 409 idempotency_conflict.',
    body: createNotificationBody,
    response: creationResponses(notificationView, 'notification', 404, 409),
  },
  examples: {
    request: {
      title: 'Manutenção programada',
      body: 'O painel ficará indisponível no domingo, das 2h às 3h (horário de Brasília).',
      severity: 'warning',
      tenant_id: null,
    },
  },
});

export const listNotifications = operation({
  method: 'GET',
  path: NOTIFICATIONS_ROUTE,
  access: { auth: 'session', roles: ['super_admin', 'tenant_admin', 'viewer'] },
  schema: {
    operationId: 'listNotifications',
    summary: 'List internal notifications: all for super_admin, those of your tree otherwise',
    description:
      'Newest first. A tenant_admin or viewer sees the platform-wide notifications and those addressed to its own tenant or a descendant. `read` and `read_at` are the calling user’s.',
    querystring: notificationListQuery,
    response: { 200: listEnvelope(notificationView), ...errorResponses(404) },
  },
});

export const markNotificationRead = operation({
  method: 'POST',
  path: `${NOTIFICATIONS_ROUTE}/:id/read`,
  access: { auth: 'session', roles: ['super_admin', 'tenant_admin', 'viewer'] },
  schema: {
    operationId: 'markNotificationRead',
    summary: 'Mark a notification read for yourself',
    description:
      'Affects only the calling user. Repeating is a no-op and keeps the first read_at. A notification you cannot list is 404 not_found.',
    params: idParams,
    response: { 200: dataEnvelope(notificationView), ...errorResponses(404) },
  },
});
