import { saoPauloDate } from '../../src/aggregates/business-date.ts';
import { type SubscriptionCreatedData, subscription } from '../../src/aggregates/subscription.ts';
import { handleCommand } from '../../src/commands/command-handler.ts';
import { subscriptionStream } from '../../src/commands/subscriptions/record.ts';
import { newId } from '../../src/ids.ts';
import { expirationMonths } from './cards.ts';
import { addDays, pixBody } from './charges.ts';
import { commandDeps, type SeedContext } from './fixtures.ts';

/**
 * A subscription's creation facts for the pure tests of its deciders (SPEC 2.4, 4.10): a monthly boleto of
 * R$ 99,00 due on the 31st, its complete payer; `over` changes what a test is about.
 */
export function subscriptionData(over: Partial<SubscriptionCreatedData> = {}): SubscriptionCreatedData {
  return {
    subscription_id: 'sub_a',
    tenant_id: 'ten_a',
    livemode: false,
    name: 'Plano mensal',
    description: 'Mensalidade',
    amount: 9900,
    method: 'boleto',
    first_due_date: '2026-01-31',
    interval_months: 1,
    advance_days: 0,
    customer: {
      name: 'Maria Silva',
      document: '52998224725',
      email: 'maria@example.com',
      phone: '11991234567',
      address: {
        zip_code: '01310200',
        street: 'Avenida Paulista',
        number: '1578',
        district: 'Bela Vista',
        city: 'São Paulo',
        state: 'SP',
      },
    },
    authorization_id: null,
    callback_url: null,
    cost_center_id: null,
    test_clock_id: null,
    ...over,
  };
}

/** A date `days` from today in America/Sao_Paulo (SPEC 4.10 counts due dates in Brasilia time). */
export const dueIn = (days: number, now = new Date()) => addDays(saoPauloDate(now), days);

/** A valid SPEC 4.10 boleto subscription body (complete payer, due in 10 days, monthly); overridable. */
export function subscriptionBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Plano mensal',
    description: 'Mensalidade',
    amount: 4990,
    method: 'boleto',
    first_due_date: dueIn(10),
    interval_months: 1,
    customer: pixBody().customer,
    ...overrides,
  };
}

/** The card data of a card subscription (SPEC 4.10: one installment, authorized by the payer). */
export function subscriptionCard(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    holder: 'MARIA SILVA',
    number: '4111111111111111',
    expiration: expirationMonths(24),
    security_code: '123',
    installments: 1,
    authorized: true,
    ...overrides,
  };
}

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
