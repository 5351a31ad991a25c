import { isRealDate } from '../../business-date.ts';
import type { ChargePolicy } from './policy.ts';

/**
 * Boleto (SPEC 4.2): a due date that can change (4.8), a payment intent (provider status 2), a Pix that may
 * come after creation, paid by the boleto or its Pix (both: a double payment, SPEC 2.2), expired only by the
 * bank's write-off (a simulated one by its deadline), refunded to a bank account when paid by boleto.
 */
export const boletoPolicy: ChargePolicy & { readonly kind: 'boleto' } = {
  kind: 'boleto',
  method: 'boleto',
  writeScope: 'boleto:write',
  sandboxRefusal: null,
  expiresIn: false,
  boletoOptions: true,
  checkFields({ expiresIn, boleto }) {
    if (expiresIn !== null) return { param: 'expires_in', message: 'A boleto has no expires_in.' };
    if (boleto === null || !isRealDate(boleto.due_date)) {
      return { param: 'boleto.due_date', message: 'A boleto needs a due date (YYYY-MM-DD).' };
    }
    return null;
  },
  paymentIntent: true,
  acceptsPayment: () => true,
  failsAfterIssue: false,
  deadlineExpires: false,
  dueDate: true,
  boletoPix: true,
  refundable: true,
  refundNeedsBankAccount: (paidWith) => paidWith === 'boleto',
};
