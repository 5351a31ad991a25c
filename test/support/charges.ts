import { saoPauloDate } from '../../src/aggregates/transaction.ts';
import { COMPANY_EXAMPLE } from '../../src/contract/operations/subaccounts.ts';

/** A valid SPEC 4.1 payer address (the tests' and benches' payers live there): the API examples' address. */
export const PAYER_ADDRESS = COMPANY_EXAMPLE.address;

/** A valid SPEC 4.1 Pix body (complete payer); tests override what they check. */
export function pixBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    amount: 1250,
    reference: 'order-1',
    description: 'Pedido 1',
    customer: {
      name: 'Maria Silva',
      document: '12345678901',
      email: 'maria@example.com',
      phone: '11987654321',
      address: { ...PAYER_ADDRESS },
    },
    ...overrides,
  };
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Today in America/Sao_Paulo (SPEC 4.2 due-date window). */
export const today = () => saoPauloDate(new Date());

/** A valid SPEC 4.2 boleto body due in five days; `options` patch `boleto`, `overrides` the top level. */
export function boletoBody(options: Record<string, unknown> = {}, overrides: Record<string, unknown> = {}) {
  return {
    amount: 9990,
    reference: 'invoice-7',
    description: 'Fatura 7',
    customer: {
      name: 'Joao Souza',
      document: '12345678000190',
      email: 'joao@example.com',
      phone: '21987654321',
      address: {
        zip_code: '20040002',
        street: 'Rua da Assembleia',
        number: '10',
        district: 'Centro',
        city: 'Rio de Janeiro',
        state: 'RJ',
      },
    },
    boleto: { due_date: addDays(today(), 5), ...options },
    ...overrides,
  };
}
