import { saoPauloDate } from '../../src/aggregates/business-date.ts';
import type { SubscriptionCreatedData } from '../../src/aggregates/subscription.ts';
import { expirationMonths } from './cards.ts';
import { addDays, pixBody } from './charges.ts';

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
