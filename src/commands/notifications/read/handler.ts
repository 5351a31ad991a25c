import { notification } from '../../../aggregates/notification.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import type { SessionPrincipal } from '../../principal.ts';
import { loadNotification, type NotificationView, notificationStream, readNotification } from '../record.ts';

/**
 * `POST /admin/notifications/{id}/read` (SPEC 5.7 "Mark notification read": super_admin any, others their
 * own scope). The receipt is the caller's own; one outside the caller's scope is `404 not_found`, and a
 * repeat appends nothing and keeps the first `read_at`.
 */
export async function markNotificationRead(
  deps: CommandDeps,
  principal: SessionPrincipal,
  notificationId: string,
  metadata: EventMetadata,
): Promise<NotificationView> {
  const current = await readNotification(deps, principal, notificationId);
  if (current.read) return current;
  await handleCommand(
    deps,
    notification,
    notificationStream(notificationId),
    { kind: 'mark_read', userId: principal.userId },
    { metadata, retryOnConflict: true },
  );
  const record = await loadNotification(deps, notificationId, principal.userId);
  if (!record) throw new Error(`notification ${notificationId} missing after a receipt`);
  return record;
}
