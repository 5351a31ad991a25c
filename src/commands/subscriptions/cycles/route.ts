import { listSubscriptionCycles } from '../../../contract/operations/subscriptions.ts';
import { bind } from '../../bind.ts';
import { page } from '../../page.ts';
import { readableSubscription } from '../readable.ts';
import { cycleViews } from './view.ts';

/** SPEC 4.10: the cycles of a readable subscription (its 404 rules), newest due date first; from the read model. */
export const cyclesRoute = bind(listSubscriptionCycles, async (call, ctx) => {
  const folded = await readableSubscription(ctx, call.apiKey(), call.params.id);
  const { limit, offset } = call.query;
  const rows = await ctx.db
    .selectFrom('subscription_cycles')
    .selectAll()
    .where('subscription_id', '=', folded.state.created.subscription_id)
    .orderBy('due_date', 'desc')
    .orderBy('cycle', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return page(await cycleViews(ctx, folded.state.created.method, rows), { limit, offset });
});
