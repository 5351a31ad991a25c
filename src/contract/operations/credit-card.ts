import { creditCardBody } from '../credit-card.ts';
import { customer, paidTransaction } from '../examples.ts';
import { operation } from '../operation.ts';
import { chargeResponses } from './transactions.ts';

/** The card charge (SPEC 4.9, 8; issue 25). */

/** What a card charge shows: the masked card, the id to charge it again, paid at once. */
export const cardTransaction = {
  ...paidTransaction,
  method: 'credit_card',
  reference: 'pedido-2026-000124',
  paid_with: 'credit_card',
  credit_card: {
    card_id: 'card_01jd3y2b4d6f8h0k2m4p6r8t0v',
    brand: 'visa',
    last_four: '1111',
    holder: 'MARIA A SOUZA',
    expiration: '12/2030',
    installments: 3,
  },
};

export const createCreditCard = operation({
  method: 'POST',
  path: '/v1/credit-card',
  access: { auth: 'api_key', scopes: ['credit_card:write'], idempotencyKey: true },
  serializer: 'compiled-success',
  tag: 'Charges',
  schema: {
    operationId: 'createCreditCard',
    summary: 'Charge a card',
    description:
      "Captured at once, 1 to 12 installments. Send `credit_card.card_id` (a card an earlier approved charge kept) or the card data (`holder`, `number`, `expiration`, `security_code`), never both; the number and code are used for one provider call and never stored, logged or returned. Requires Idempotency-Key (scope: tenant + key, shared with Pix and boleto). 201 `paid`; 200 replay with `Idempotency-Replayed: true`; 202 `unknown` (the card may have been charged: never send it again, refresh instead); 502 provider_rejected with error.transaction_id when declined. Test keys take only the test cards listed in the README and never reach a provider. A tenant routed to a marketplace provider charges through its own active subaccount link (`subaccount_id` in the answer; a parent's link is never used): 422 subaccount_not_configured without one, 422 subaccount_credentials_missing when the link holds no token for the provider's environment; both before anything is stored, for test keys too.",
    body: creditCardBody,
    response: chargeResponses,
  },
  examples: {
    request: {
      amount: 15990,
      reference: 'pedido-2026-000124',
      description: 'Pedido 124: tênis de corrida',
      customer,
      installments: 3,
      credit_card: {
        holder: 'MARIA A SOUZA',
        number: '4111111111111111',
        expiration: '12/2030',
        security_code: '123',
      },
    },
    responses: { 201: { data: cardTransaction }, 200: { data: cardTransaction } },
  },
});
