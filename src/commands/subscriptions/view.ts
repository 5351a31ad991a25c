import type { Selectable } from 'kysely';
import type { SubscriptionView } from '../../contract/subscriptions.ts';
import type { SubscriptionsTable } from '../../projections/subscriptions.ts';
import type { AppContext } from '../context.ts';
import { costCenterNames } from '../cost-centers/names.ts';
import type { FoldedSubscription } from './record.ts';

/**
 * The public Subscription (SPEC 2.4; src/contract/subscriptions.ts `subscriptionView`), from either source:
 * the read model's row (lists) or the stream's fold (a command's answer and a GET by id, always consistent),
 * both as {@link SubscriptionFacts}.
 * The payer's document, contact and address never leave: only `customer_name` (SPEC 2.2 rule 4, by analogy).
 * Facts are the read model's own columns (`Selectable`: timestamps as Dates).
 */
export type SubscriptionFacts = Pick<
  Selectable<SubscriptionsTable>,
  | 'id'
  | 'tenant_id'
  | 'livemode'
  | 'status'
  | 'name'
  | 'customer_name'
  | 'amount'
  | 'method'
  | 'description'
  | 'first_due_date'
  | 'next_due_date'
  | 'interval_months'
  | 'advance_days'
  | 'cycle'
  | 'authorization_id'
  | 'callback_url'
  | 'last_error'
  | 'next_attempt_at'
  | 'test_clock_id'
  | 'cost_center_id'
  | 'created_at'
  | 'updated_at'
>;

export function factsOfFold(folded: FoldedSubscription): SubscriptionFacts {
  const s = folded.state;
  const c = s.created;
  return {
    id: c.subscription_id,
    tenant_id: c.tenant_id,
    livemode: c.livemode,
    status: s.status,
    name: c.name,
    customer_name: c.customer.name,
    amount: c.amount,
    method: c.method,
    description: c.description,
    first_due_date: c.first_due_date,
    next_due_date: s.nextDueDate,
    interval_months: c.interval_months,
    advance_days: c.advance_days,
    cycle: s.cycle,
    authorization_id: c.authorization_id,
    callback_url: c.callback_url,
    last_error: s.lastError,
    next_attempt_at: s.nextAttemptAt === null ? null : new Date(s.nextAttemptAt),
    test_clock_id: c.test_clock_id,
    cost_center_id: s.costCenterId,
    created_at: folded.createdAt,
    updated_at: folded.updatedAt,
  };
}

export function subscriptionViewOf(
  facts: SubscriptionFacts,
  costCenterName: string | null,
): SubscriptionView {
  return {
    ...facts,
    next_attempt_at: facts.next_attempt_at === null ? null : facts.next_attempt_at.toISOString(),
    cost_center_name: costCenterName,
    created_at: facts.created_at.toISOString(),
    updated_at: facts.updated_at.toISOString(),
  };
}

/** The views of several subscriptions, their cost centers named with one query. */
export async function subscriptionViews(
  ctx: Pick<AppContext, 'db'>,
  facts: readonly SubscriptionFacts[],
): Promise<SubscriptionView[]> {
  const names = await costCenterNames(
    ctx,
    facts.flatMap((f) => (f.cost_center_id ? [f.cost_center_id] : [])),
  );
  return facts.map((f) =>
    subscriptionViewOf(f, f.cost_center_id ? (names.get(f.cost_center_id) ?? null) : null),
  );
}

/** The view of one folded subscription (a command's answer, GET by id). */
export async function toSubscriptionView(
  ctx: Pick<AppContext, 'db'>,
  folded: FoldedSubscription,
): Promise<SubscriptionView> {
  const [view] = await subscriptionViews(ctx, [factsOfFold(folded)]);
  return view as SubscriptionView;
}
