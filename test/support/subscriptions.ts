import type { SubscriptionCreatedData } from '../../src/aggregates/subscription.ts';

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
