import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/event-registry.ts';
import { type Decider, DomainError } from './decider.ts';
import type { TransitionTable } from './transition-table.ts';

/**
 * An internal panel notification (SPEC 2.7 "notification records", 5.7 "Create internal notification",
 * "Mark notification read"; stream `notification-<id>`). A super_admin publishes it to one tenant or, with
 * `tenant_id` null, to the whole platform; its text never changes afterwards. Read state is a receipt per
 * user (docs/decisions.md "Panel notifications, logs and the roles table"): marking it read is one user's
 * fact, so a colleague's unread badge is not cleared by someone else's click.
 */

const notificationId = z.string().startsWith('ntf_');
const tenantId = z.string().startsWith('ten_');

export const NOTIFICATION_SEVERITIES = ['info', 'warning', 'critical'] as const;
export type NotificationSeverity = (typeof NOTIFICATION_SEVERITIES)[number];

const createdData = z.strictObject({
  notification_id: notificationId,
  tenant_id: tenantId.nullable(),
  title: z.string(),
  body: z.string(),
  severity: z.enum(NOTIFICATION_SEVERITIES),
  created_by: z.string(),
});
// tenant_id is repeated so the audit log files the receipt under the notification's tenant (its tree).
const readData = z.strictObject({
  notification_id: notificationId,
  tenant_id: tenantId.nullable(),
  user_id: z.string(),
});

export const notificationEvents = [
  defineEvent({
    type: 'Notification.Created',
    audit: { action: 'notification.created', when: 'a super_admin published an internal notification' },
    schema: createdData,
  }),
  defineEvent({
    type: 'Notification.Read',
    audit: { action: 'notification.read', when: 'a panel user marked a notification read' },
    schema: readData,
  }),
];

export type NotificationEvent = EventOf<(typeof notificationEvents)[number]>;

export type NotificationStatus = 'published';

/** What a notification is published with: the create command's facts, which its state keeps. */
interface NotificationFacts {
  readonly notificationId: string;
  /** null: the whole platform. */
  readonly tenantId: string | null;
  /** Already trimmed by the command layer. */
  readonly title: string;
  readonly body: string;
  readonly severity: NotificationSeverity;
  /** The publishing super_admin's user id. */
  readonly createdBy: string;
}

export type NotificationState =
  | { readonly status: 'none' }
  | (NotificationFacts & {
      readonly status: NotificationStatus;
      /** Users who marked it read. */
      readonly readBy: ReadonlySet<string>;
    });

export interface CreateNotification extends NotificationFacts {
  readonly kind: 'create';
}
export interface MarkNotificationRead {
  readonly kind: 'mark_read';
  readonly userId: string;
}
export type NotificationCommand = CreateNotification | MarkNotificationRead;

/** docs/decisions.md "Panel notifications": title 1 to 120 bytes, body 1 to 4000 bytes of UTF-8, trimmed. */
export const NOTIFICATION_TITLE_MAX_BYTES = 120;
export const NOTIFICATION_BODY_MAX_BYTES = 4000;

function validText(text: string, max: number, allowNewlines: boolean): boolean {
  if (text !== text.trim()) return false;
  // A body may have line breaks; nothing else of the control characters, and a title none.
  const control = allowNewlines ? /(?![\n\r\t])\p{Cc}/u : /\p{Cc}/u;
  if (control.test(text)) return false;
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes >= 1 && bytes <= max;
}

export const isValidNotificationTitle = (t: string) => validText(t, NOTIFICATION_TITLE_MAX_BYTES, false);
export const isValidNotificationBody = (b: string) => validText(b, NOTIFICATION_BODY_MAX_BYTES, true);

/**
 * State table (SPEC 5.7). The text is immutable; a receipt is per user and repeating it is a no-op, so
 * marking read is idempotent and "read at" keeps meaning the first time.
 *
 *   state      | create                          | mark_read(user)
 *   -----------+---------------------------------+---------------------------------------------------
 *   none       | Notification.Created -> published | 404 not_found
 *   published  | same facts: no-op; else 409     | Notification.Read -> published (user already read: no-op)
 *
 * create refuses an invalid title or body with 422 validation_error.
 */
export const notificationTransitions: TransitionTable<
  NotificationStatus,
  NotificationCommand['kind'],
  NotificationEvent['type']
> = {
  none: {
    create: { emits: 'Notification.Created', to: 'published' },
    mark_read: { refuse: 'not_found' },
  },
  published: {
    create: { repeat: 'same_facts_or_conflict' },
    mark_read: { emits: 'Notification.Read', to: 'published' },
  },
};

export const notification: Decider<NotificationCommand, NotificationEvent, NotificationState> = {
  initialState: { status: 'none' },

  evolve(state, event) {
    switch (event.type) {
      case 'Notification.Created': {
        const d = event.data;
        return {
          status: 'published',
          notificationId: d.notification_id,
          tenantId: d.tenant_id,
          title: d.title,
          body: d.body,
          severity: d.severity,
          createdBy: d.created_by,
          readBy: new Set(),
        };
      }
      case 'Notification.Read':
        if (state.status === 'none') return state;
        return { ...state, readBy: new Set([...state.readBy, event.data.user_id]) };
    }
  },

  decide(command, state) {
    const move = notificationTransitions[state.status][command.kind];
    if ('refuse' in move) return new DomainError(move.refuse, 'The notification does not exist.');
    if ('noop' in move) return [];
    if ('repeat' in move) {
      const same =
        state.status !== 'none' &&
        command.kind === 'create' &&
        state.notificationId === command.notificationId &&
        state.tenantId === command.tenantId &&
        state.title === command.title &&
        state.body === command.body &&
        state.severity === command.severity &&
        state.createdBy === command.createdBy;
      return same ? [] : new DomainError('conflict', 'This notification already exists with other values.');
    }
    switch (command.kind) {
      case 'create':
        if (!isValidNotificationTitle(command.title)) {
          return new DomainError('validation_error', 'The title must have 1 to 120 bytes after trim.', {
            param: 'title',
          });
        }
        if (!isValidNotificationBody(command.body)) {
          return new DomainError('validation_error', 'The body must have 1 to 4000 bytes after trim.', {
            param: 'body',
          });
        }
        return [
          {
            type: 'Notification.Created',
            data: {
              notification_id: command.notificationId,
              tenant_id: command.tenantId,
              title: command.title,
              body: command.body,
              severity: command.severity,
              created_by: command.createdBy,
            },
          },
        ];
      case 'mark_read':
        if (state.status === 'none') throw new Error('notification state table: mark_read of a missing one');
        if (state.readBy.has(command.userId)) return [];
        return [
          {
            type: 'Notification.Read',
            data: {
              notification_id: state.notificationId,
              tenant_id: state.tenantId,
              user_id: command.userId,
            },
          },
        ];
    }
  },
};
