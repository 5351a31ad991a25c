import { pixPolicy } from './pix.ts';
import type { ChargePolicy } from './policy.ts';

/**
 * A Pix Automatic debit (SPEC 2.2, 3.1, 4.11; issue 27): a Pix charge (`method: pix`) the payer's bank
 * debits on its scheduled due date under an approved authorization. `pending` means scheduled: no
 * `expires_in`, so `expires_at` stays null and no automatic expiry by deadline (the provider reports
 * `expired` when the debit failed for lack of funds, with no retry); no QR code or copy-and-paste is ever
 * issued for it (the charge page shows the schedule only); its state is read with the port's
 * `pixAutomatic.queryDebit`, never `charges.query`. Paid only by Pix. Not refundable through SPEC 4.8: the
 * Pix refund path addresses a Pix charge's end-to-end id, which a debit does not have at the provider
 * (docs/decisions.md "Pix Automatic (issue 27): debits and polling").
 */
export const pixAutomaticDebitPolicy: ChargePolicy & { readonly kind: 'pix_automatic_debit' } = {
  kind: 'pix_automatic_debit',
  method: 'pix',
  writeScope: 'pix:write',
  // SPEC 1: the external provider has no Pix sandbox, debits included.
  sandboxRefusal: pixPolicy.sandboxRefusal,
  expiresIn: false,
  boletoOptions: false,
  checkFields({ expiresIn, boleto }) {
    if (expiresIn !== null) return { param: 'expires_in', message: 'A scheduled debit has no expires_in.' };
    if (boleto !== null) return { param: 'boleto', message: 'A scheduled debit has no boleto options.' };
    return null;
  },
  paymentIntent: false,
  acceptsPayment: (paidWith, duplicatePayment) => paidWith === 'pix' && !duplicatePayment,
  failsAfterIssue: true,
  deadlineExpires: false,
  dueDate: false,
  boletoPix: false,
  refundable: false,
  refundNeedsBankAccount: () => false,
};
