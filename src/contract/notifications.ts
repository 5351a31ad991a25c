import { z } from 'zod';
import { NOTIFICATION_SEVERITIES } from '../aggregates/notification.ts';
import { pageQuery, queryBoolean } from './envelopes.ts';
import { utf8Text } from './text.ts';

/**
 * The HTTP contract of internal panel notifications (SPEC 2.7, 5.7): the view and the request schemas of
 * their routes. Shared by the routes and the SDK; pure (zod only), because the SDK bundles it.
 */

export const notificationView = z
  .object({
    id: z.string(),
    tenant_id: z
      .string()
      .nullable()
      .meta({ description: 'The tenant it is addressed to; null when addressed to the whole platform.' }),
    title: z.string(),
    body: z.string(),
    severity: z.enum(NOTIFICATION_SEVERITIES),
    created_by: z.string().meta({ description: 'The id of the super_admin who published it.' }),
    created_at: z.iso.datetime(),
    read: z.boolean().meta({ description: 'Whether the calling user has marked it read.' }),
    read_at: z.iso
      .datetime()
      .nullable()
      .meta({ description: 'When the calling user first marked it read; null while unread.' }),
  })
  .meta({
    id: 'Notification',
    description:
      'An internal message from the platform operators to panel users. Read state is per user: marking it read affects only the caller.',
  });

export const createNotificationBody = z.strictObject({
  title: utf8Text(1, 120).meta({
    description: 'Text, 1 to 120 bytes of UTF-8 after trim, no control characters; stored trimmed.',
  }),
  body: utf8Text(1, 4000).meta({
    description:
      'Text, 1 to 4000 bytes of UTF-8 after trim; line breaks allowed, no other control characters; stored trimmed.',
  }),
  severity: z.enum(NOTIFICATION_SEVERITIES),
  tenant_id: z.string().min(1).max(100).nullable().meta({
    description:
      'The tenant it is addressed to (its panel users and those of its ancestors see it), or null for every panel user. Required: send null explicitly for a platform-wide notification.',
  }),
});

export const notificationListQuery = z.strictObject({
  ...pageQuery.shape,
  unread: queryBoolean.optional().meta({
    description: 'true: only those the caller has not marked read; false: only those it has.',
  }),
  tenant_id: z.string().min(1).max(100).optional().meta({
    description:
      'Only those addressed to this tenant (platform-wide ones excluded); a tenant outside your tree is 404.',
  }),
});
