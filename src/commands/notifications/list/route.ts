import { sql } from 'kysely';
import { listNotifications } from '../../../contract/operations/notifications.ts';
import { bind } from '../../bind.ts';
import { page } from '../../page.ts';
import { requireTenantInTree, tenantInTreeSql } from '../../tenancy.ts';
import type { NotificationView } from '../record.ts';

/**
 * `GET /admin/notifications` (SPEC 5.7 "Read notifications"): newest first, what the caller sees (record.ts
 * `sees`) with the caller's own receipts. A `tenant_id` outside the tree answers 404 like every other id
 * outside it. No handler: nothing is decided.
 */
export const listRoute = bind(listNotifications, async (call, ctx) => {
  const principal = call.session();
  const q = call.query;
  if (q.tenant_id !== undefined) await requireTenantInTree(ctx.db, principal, q.tenant_id);
  const rows = await ctx.db
    .selectFrom('notifications as n')
    .leftJoin('notification_reads as r', (j) =>
      j.onRef('r.notification_id', '=', 'n.id').on('r.user_id', '=', principal.userId),
    )
    .select(['n.id', 'n.tenant_id', 'n.title', 'n.body', 'n.severity', 'n.created_by', 'n.created_at'])
    .select('r.read_at')
    .where((w) => w.or([w('n.tenant_id', 'is', null), tenantInTreeSql(principal, 'n.tenant_id')]))
    .$if(q.tenant_id !== undefined, (b) => b.where('n.tenant_id', '=', q.tenant_id ?? ''))
    .$if(q.unread === true, (b) => b.where('r.read_at', 'is', null))
    .$if(q.unread === false, (b) => b.where('r.read_at', 'is not', null))
    .orderBy(sql.ref('n.created_at'), 'desc')
    .orderBy(sql.ref('n.id'), 'desc')
    .limit(q.limit)
    .offset(q.offset)
    .execute();
  return page(
    rows.map(
      (r): NotificationView => ({
        id: r.id,
        tenant_id: r.tenant_id,
        title: r.title,
        body: r.body,
        severity: r.severity as NotificationView['severity'],
        created_by: r.created_by,
        created_at: new Date(r.created_at).toISOString(),
        read: r.read_at !== null,
        read_at: r.read_at === null ? null : new Date(r.read_at).toISOString(),
      }),
    ),
    q,
  );
});
