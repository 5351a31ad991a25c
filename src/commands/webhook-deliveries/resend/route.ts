import { resendWebhookDelivery } from '../../../contract/operations/webhook-deliveries.ts';
import { bind } from '../../bind.ts';
import { type DeliveryRow, deliveryRows, loadDeliveryInTree, toDeliveryView } from '../view.ts';

/**
 * One more attempt now, whatever the delivery's status: the outbox row goes back to `pending` and the
 * delivery worker sends it (no event: deliveries are the outbox's state, not facts of an aggregate).
 */
export const resendRoute = bind(resendWebhookDelivery, async (call, ctx) => {
  const row = await loadDeliveryInTree(ctx.db, call.session(), call.params.id);
  const now = ctx.now();
  await ctx.db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, locked_until: null, updated_at: now })
    .where('id', '=', row.id)
    .execute();
  return {
    data: toDeliveryView(
      (await deliveryRows(ctx.db).where('d.id', '=', row.id).executeTakeFirstOrThrow()) as DeliveryRow,
    ),
  };
});
