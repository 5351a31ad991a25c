import { saoPauloDate } from '../../src/aggregates/business-date.ts';
import { expirationMonths } from './cards.ts';
import { addDays, pixBody } from './charges.ts';

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
