import { createNotification as createNotificationOperation } from '../../../contract/operations/notifications.ts';
import { bind, createdOrReplayed } from '../../bind.ts';
import { createNotification } from './handler.ts';

/** SPEC 5.7: a super_admin publishes a notification, once per Idempotency-Key (201, or the replay's 200). */
export const createRoute = bind(createNotificationOperation, async (call, ctx) => {
  const principal = call.session();
  const { record, created } = await createNotification(
    { store: ctx.store, registry: ctx.events, now: () => ctx.now() },
    {
      userId: principal.userId,
      idempotencyKey: call.idempotencyKey(),
      tenantId: call.body.tenant_id,
      title: call.body.title,
      body: call.body.body,
      severity: call.body.severity,
    },
    call.metadata(),
  );
  return createdOrReplayed(created, { data: record });
});
