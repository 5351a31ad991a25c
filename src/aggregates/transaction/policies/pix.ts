import type { ChargePolicy } from './policy.ts';

/**
 * Pix (SPEC 4.1): expires `expires_in` seconds after creation (60-86400), paid only by Pix, no due date,
 * no payment intent, no sandbox at the external provider.
 */
export const pixPolicy: ChargePolicy & { readonly kind: 'pix' } = {
  kind: 'pix',
  method: 'pix',
  writeScope: 'pix:write',
  sandboxRefusal: {
    code: 'provider_pix_sandbox_unsupported',
    message: 'The external provider has no Pix sandbox.',
  },
  expiresIn: true,
  boletoOptions: false,
  checkFields({ expiresIn, boleto }) {
    if (expiresIn === null || !Number.isInteger(expiresIn) || expiresIn < 60 || expiresIn > 86_400) {
      return {
        param: 'expires_in',
        message: 'A Pix charge needs an effective expires_in of 60 to 86400 seconds.',
      };
    }
    if (boleto !== null) return { param: 'boleto', message: 'A Pix charge has no boleto options.' };
    return null;
  },
  paymentIntent: false,
  acceptsPayment: (paidWith, duplicatePayment) => paidWith === 'pix' && !duplicatePayment,
  failsAfterIssue: false,
  deadlineExpires: true,
  dueDate: false,
  boletoPix: false,
  refundable: true,
  refundNeedsBankAccount: () => false,
};
