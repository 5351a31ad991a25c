import type { SubscriptionMethod } from '../../../aggregates/subscription.ts';
import { documentUrl } from '../../../charge-page/signature.ts';
import { documentSigningSecret } from '../../../charge-page/signing-secret.ts';
import { checkoutUrl } from '../../../checkout-page/signature.ts';
import type { CycleView } from '../../../contract/subscriptions.ts';
import type { SubscriptionCyclesTable } from '../../../projections/subscriptions.ts';
import type { AppContext } from '../../context.ts';

type CycleRow = Omit<SubscriptionCyclesTable, 'created_at' | 'updated_at'> & {
  created_at: Date;
  updated_at: Date;
};

/**
 * The public cycles (SPEC 2.5) of one subscription's page of rows, with each charge's status as it is now (the
 * transactions read model). `payment_url`: the charge page (`document_url`) of a boleto or card charge; the
 * signed checkout link of a Pix cycle, whose transaction shows only once the payer chose to pay: the
 * checkout's first charge.
 */
export async function cycleViews(
  ctx: Pick<AppContext, 'db' | 'config'>,
  method: SubscriptionMethod,
  rows: readonly CycleRow[],
): Promise<CycleView[]> {
  const checkoutIds = rows.flatMap((r) => (r.checkout_id ? [r.checkout_id] : []));
  const firstCharge = new Map<string, string>();
  if (checkoutIds.length > 0) {
    const checkouts = await ctx.db
      .selectFrom('checkouts')
      .select(['id', 'transaction_ids'])
      .where('id', 'in', checkoutIds)
      .execute();
    for (const c of checkouts) {
      const first = c.transaction_ids[0];
      if (first) firstCharge.set(c.id, first);
    }
  }
  const transactionOf = (r: CycleRow) =>
    r.checkout_id ? (firstCharge.get(r.checkout_id) ?? null) : r.transaction_id;
  const transactionIds = rows.flatMap((r) => {
    const id = transactionOf(r);
    return id ? [id] : [];
  });
  const statuses = new Map<string, CycleView['transaction_status']>();
  if (transactionIds.length > 0) {
    const charges = await ctx.db
      .selectFrom('transactions')
      .select(['id', 'status'])
      .where('id', 'in', transactionIds)
      .execute();
    for (const t of charges) statuses.set(t.id, t.status as CycleView['transaction_status']);
  }
  const secret = await documentSigningSecret(ctx.config);
  return rows.map((r) => {
    const transactionId = transactionOf(r);
    const paymentUrl = r.checkout_id
      ? checkoutUrl(ctx.config.baseUrl, secret, r.checkout_id)
      : transactionId && method !== 'pix'
        ? documentUrl(ctx.config.baseUrl, secret, transactionId)
        : null;
    return {
      id: r.id,
      subscription_id: r.subscription_id,
      cycle: r.cycle,
      due_date: r.due_date,
      status: r.status,
      transaction_id: transactionId,
      checkout_id: r.checkout_id,
      transaction_status: transactionId ? (statuses.get(transactionId) ?? null) : null,
      payment_url: paymentUrl,
      error_code: r.error_code,
      created_at: new Date(r.created_at).toISOString(),
      updated_at: new Date(r.updated_at).toISOString(),
    };
  });
}
