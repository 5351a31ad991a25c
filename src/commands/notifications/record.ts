import { DomainError, fold } from '../../aggregates/decider.ts';
import type { NotificationEvent, NotificationSeverity } from '../../aggregates/notification.ts';
import { notification } from '../../aggregates/notification.ts';
import type { CommandDeps } from '../command-handler.ts';
import type { SessionPrincipal } from '../principal.ts';
import { isTenantInTree, treeRoot } from '../tenancy.ts';

/**
 * Internal panel notifications (SPEC 2.7, 5.7). What one user sees of one: the text, and that user's own
 * receipt (`read`, `read_at`; docs/decisions.md "Panel notifications, logs and the roles table").
 */
export interface NotificationView {
  id: string;
  tenant_id: string | null;
  title: string;
  body: string;
  severity: NotificationSeverity;
  created_by: string;
  created_at: string;
  read: boolean;
  read_at: string | null;
}

export const notificationStream = (notificationId: string) => `notification-${notificationId}`;

type ReadDeps = Pick<CommandDeps, 'store' | 'registry'>;

/**
 * A notification folded from its stream as `userId` sees it: `created_at` is the recorded time of its first
 * event and `read_at` that of the user's first receipt. Ids that are not `ntf_...` are never looked up.
 */
export async function loadNotification(
  deps: ReadDeps,
  notificationId: string,
  userId: string,
): Promise<NotificationView | undefined> {
  if (!/^ntf_[A-Za-z0-9]{1,60}$/.test(notificationId)) return undefined;
  const recorded = await deps.store.read(notificationStream(notificationId));
  const first = recorded[0];
  if (!first) return undefined;
  const events = recorded.map((r) => deps.registry.decode(r) as NotificationEvent);
  const state = fold(notification, events);
  if (state.status === 'none') return undefined;
  const receipt = events.findIndex((e) => e.type === 'Notification.Read' && e.data.user_id === userId);
  const readAt = receipt < 0 ? undefined : recorded[receipt]?.recordedAt;
  return {
    id: state.notificationId,
    tenant_id: state.tenantId,
    title: state.title,
    body: state.body,
    severity: state.severity,
    created_by: state.createdBy,
    created_at: first.recordedAt.toISOString(),
    read: readAt !== undefined,
    read_at: readAt?.toISOString() ?? null,
  };
}

/**
 * SPEC 5.7 "Read notifications: own tree": a super_admin sees every notification; a tenant_admin or viewer
 * sees the platform-wide ones (tenant null: addressed to everyone) and those addressed to its own tenant or
 * a descendant.
 */
export async function sees(
  deps: ReadDeps,
  principal: SessionPrincipal,
  notificationTenantId: string | null,
): Promise<boolean> {
  const root = treeRoot(principal);
  if (root === undefined || notificationTenantId === null) return true;
  return isTenantInTree(deps, root, notificationTenantId);
}

/** A notification the caller sees, or `404 not_found` (missing and outside the tree are not told apart). */
export async function readNotification(
  deps: ReadDeps,
  principal: SessionPrincipal,
  notificationId: string,
): Promise<NotificationView> {
  const view = await loadNotification(deps, notificationId, principal.userId);
  if (!view || !(await sees(deps, principal, view.tenant_id))) {
    throw new DomainError('not_found', 'The notification does not exist.');
  }
  return view;
}
