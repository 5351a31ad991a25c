import { notificationEvents } from '../aggregates/notification.ts';
import { decodedProjection } from './decoded-projection.ts';

/**
 * The `notifications` and `notification_reads` read models (SPEC 5.7): the panel's list with its `unread`
 * filter. Inline, so a published notification or a receipt is listed at once. A receipt repeated by a replay
 * of the log keeps its first time.
 */
export const notificationsProjection = decodedProjection({
  name: 'notifications',
  definitions: notificationEvents,
  tables: ['notifications', 'notification_reads'],

  async apply(event, at, trx) {
    switch (event.type) {
      case 'Notification.Created': {
        const d = event.data;
        await trx
          .insertInto('notifications')
          .values({
            id: d.notification_id,
            tenant_id: d.tenant_id,
            title: d.title,
            body: d.body,
            severity: d.severity,
            created_by: d.created_by,
            created_at: at,
          })
          .execute();
        return;
      }
      case 'Notification.Read':
        await trx
          .insertInto('notification_reads')
          .values({ notification_id: event.data.notification_id, user_id: event.data.user_id, read_at: at })
          .onConflict((oc) => oc.columns(['user_id', 'notification_id']).doNothing())
          .execute();
        return;
    }
  },
});
