import { DomainError, isDomainError } from '../../../aggregates/decider.ts';
import { ApiError } from '../../../aggregates/errors.ts';
import type { NotificationSeverity } from '../../../aggregates/notification.ts';
import { notification } from '../../../aggregates/notification.ts';
import { sha256Hex } from '../../../crypto/secrets.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import { loadTenant } from '../../tenants/tenant-record.ts';
import { loadNotification, type NotificationView, notificationStream } from '../record.ts';

export interface CreateNotificationInput {
  /** The publishing super_admin. */
  userId: string;
  idempotencyKey: string;
  tenantId: string | null;
  title: string;
  body: string;
  severity: NotificationSeverity;
}

/**
 * The id a creation gets is derived from the caller and its Idempotency-Key (as a tenant's is), so the
 * creation is one append to a stream that must not exist: a repeat finds the notification, and a crash
 * leaves nothing half done.
 */
export function notificationIdFor(userId: string, idempotencyKey: string): string {
  return `ntf_${sha256Hex(`${userId}\n${idempotencyKey}`).slice(0, 26)}`;
}

/**
 * `POST /admin/notifications` (SPEC 5.7 "Create internal notification"). The text is trimmed and checked by
 * the decider before anything is read; a named tenant must exist (`404 not_found`). A replay with the same
 * key and body answers the stored notification (`created: false`); another body is `409 idempotency_conflict`.
 */
export async function createNotification(
  deps: CommandDeps,
  input: CreateNotificationInput,
  metadata: EventMetadata,
): Promise<{ record: NotificationView; created: boolean }> {
  const notificationId = notificationIdFor(input.userId, input.idempotencyKey);
  const command = {
    kind: 'create' as const,
    notificationId,
    tenantId: input.tenantId,
    title: input.title.trim(),
    body: input.body.trim(),
    severity: input.severity,
    createdBy: input.userId,
  };
  const precheck = notification.decide(command, notification.initialState, { now: deps.now() });
  if (isDomainError(precheck)) throw precheck;

  const replay = async () => {
    const earlier = await loadNotification(deps, notificationId, input.userId);
    if (!earlier) return undefined;
    const same =
      earlier.tenant_id === command.tenantId &&
      earlier.title === command.title &&
      earlier.body === command.body &&
      earlier.severity === command.severity;
    if (!same) throw new ApiError('idempotency_conflict');
    return { record: earlier, created: false };
  };
  const earlier = await replay();
  if (earlier) return earlier;
  if (input.tenantId !== null && !(await loadTenant(deps, input.tenantId))) {
    throw new DomainError('not_found', 'The tenant does not exist.', { param: 'tenant_id' });
  }
  try {
    await handleCommand(deps, notification, notificationStream(notificationId), command, { metadata });
  } catch (error) {
    // A concurrent request with the same key appended first: answer as its replay.
    const raced = await replay();
    if (raced) return raced;
    throw error;
  }
  const record = await loadNotification(deps, notificationId, input.userId);
  if (!record) throw new Error(`notification ${notificationId} missing after its creation`);
  return { record, created: true };
}
