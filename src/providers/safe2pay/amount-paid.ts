import type { Diagnostics } from '../../aggregates/transaction.ts';
import { diagnosticsFor } from './diagnostics.ts';
import { reaisToCentavos } from './money.ts';

/**
 * What a "paid" read proves about the money (issue 22 item 2; SPEC 3.1's exact-amount row, 4.6). The read's
 * `AmountPayment` (wire doc 2.10, listed without its meaning; the emulator's convention: what the payer
 * paid) is the only figure of the payment itself. A read whose `Status` says paid proves a payment of the
 * charge only when that figure, if given, covers the charge's `Amount`:
 *
 * - absent or null: the status is the provider's only word, taken as today (a read that never carries the
 *   field must still settle);
 * - an exact amount of centavos at or above `Amount`: paid (a late boleto's penalty and interest make it
 *   more, twice or more is the double payment, adapter.ts);
 * - below `Amount` (R$ 0,01 on a R$ 19,99 Pix), or present but not an exact amount ("abc", "12.505", a
 *   negative): not proven. The adapter answers `uncertain`/`mismatch` with {@link UNDERPAID_DIAGNOSTICS}: the
 *   charge stays as it is and the refresh answers 502 provider_refresh_failed.
 */
export function paymentBelowAmount(amountPayment: unknown, amount: number): boolean {
  if (amountPayment === undefined || amountPayment === null) return false;
  const paid = reaisToCentavos(amountPayment);
  return paid === null || paid < amount;
}

const UNDERPAID_GUIDANCE =
  'O provedor informa pagamento abaixo do valor da cobrança (ou ilegível); pagamento não confirmado. / The provider reports a payment below the charge amount (or unreadable); payment not confirmed.';

/** The exact-amount mismatch's diagnostics, with a static guidance naming the short payment. */
export function underpaidDiagnostics(httpStatus: number): Diagnostics {
  return { ...diagnosticsFor('mismatch', null, httpStatus), provider_error_message: UNDERPAID_GUIDANCE };
}
