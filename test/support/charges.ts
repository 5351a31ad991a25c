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
      address: {
        zip_code: '01310100',
        street: 'Avenida Paulista',
        number: '1000',
        district: 'Bela Vista',
        city: 'Sao Paulo',
        state: 'SP',
      },
    },
    ...overrides,
  };
}
