import { type SubscriptionCreatedData, subscription } from '../../src/aggregates/subscription.ts';
import { handleCommand } from '../../src/commands/command-handler.ts';
import { subscriptionStream } from '../../src/commands/subscriptions/record.ts';
import { newId } from '../../src/ids.ts';
import { pixBody } from './charges.ts';
import { commandDeps, type SeedContext } from './fixtures.ts';

/**
 * A test-mode monthly boleto subscription of `tenantId` (SPEC 4.10), created by the decider on the real store
 * (no first charge: the scheduler issues every cycle), with `over` on top. Returns its id.
 */
export async function seedSubscription(
  ctx: SeedContext,
  tenantId: string,
  over: Partial<SubscriptionCreatedData> = {},
): Promise<string> {
  const id = newId('sub');
  const data: SubscriptionCreatedData = {
    subscription_id: id,
    tenant_id: tenantId,
    livemode: false,
    name: 'Plano mensal',
    description: 'Mensalidade',
    amount: 9900,
    method: 'boleto',
    first_due_date: '2027-01-31',
    interval_months: 1,
    advance_days: 0,
    customer: pixBody().customer as SubscriptionCreatedData['customer'],
    authorization_id: null,
    callback_url: null,
    cost_center_id: null,
    test_clock_id: null,
    ...over,
  };
  await handleCommand(
    commandDeps(ctx),
    subscription,
    subscriptionStream(id),
    { kind: 'create', data },
    { metadata: { actor: 'system:test', request_id: 'req_seed_subscription' } },
  );
  return id;
}
