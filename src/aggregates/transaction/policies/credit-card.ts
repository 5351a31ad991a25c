import type { ChargePolicy } from './policy.ts';

/**
 * Credit card (SPEC 4.9, 8; issue 25): captured at once, so a creation answer may already be `paid`; no
 * expiry, no due date, no payment intent, paid only by the card; refunded integrally through the provider.
 * The external provider's sandbox is not used for cards (SPEC 1 allows it for boleto only, and its sandbox
 * tokenization is reported to return no token: wire doc wave 2b §1.2).
 */
export const creditCardPolicy: ChargePolicy & { readonly kind: 'credit_card' } = {
  kind: 'credit_card',
  method: 'credit_card',
  writeScope: 'credit_card:write',
  sandboxRefusal: {
    code: 'provider_card_sandbox_unsupported',
    message: 'The external provider sandbox does not take cards; card charges go to production only.',
  },
  expiresIn: false,
  boletoOptions: false,
  checkFields({ expiresIn, boleto }) {
    if (expiresIn !== null) return { param: 'expires_in', message: 'A card charge has no expires_in.' };
    if (boleto !== null) return { param: 'boleto', message: 'A card charge has no boleto options.' };
    return null;
  },
  paymentIntent: false,
  acceptsPayment: (paidWith, duplicatePayment) => paidWith === 'credit_card' && !duplicatePayment,
  failsAfterIssue: false,
  deadlineExpires: false,
  dueDate: false,
  boletoPix: false,
  refundable: true,
  refundNeedsBankAccount: () => false,
};
