import { getWebhookDelivery } from '../../../contract/operations/webhook-deliveries.ts';
import { bind } from '../../bind.ts';
import { iso, loadDeliveryInTree, toDeliveryView } from '../view.ts';

/** One delivery of the caller's tree with every attempt, in order. */
export const getRoute = bind(getWebhookDelivery, async (call, ctx) => {
  const row = await loadDeliveryInTree(ctx.db, call.session(), call.params.id);
  const attempts = await ctx.db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('delivery_id', '=', row.id)
    .orderBy('attempt')
    .execute();
  return {
    data: {
      ...toDeliveryView(row),
      attempts_log: attempts.map((a) => ({
        attempt: a.attempt,
        started_at: iso(a.started_at) ?? '',
        duration_ms: a.duration_ms,
        outcome: a.outcome,
        status_code: a.status_code,
        error: a.error,
      })),
    },
  };
});
