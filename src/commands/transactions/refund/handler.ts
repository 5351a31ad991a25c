import { DomainError } from '../../../aggregates/decider.ts';
import { chargeKindOf, policyOf, type TransactionFacts } from '../../../aggregates/transaction.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import {
  adapterContext,
  type ChangeContext,
  type ChangeInput,
  type ChangeOutcome,
  idempotentChange,
  refuseState,
} from '../shared/idempotent-change.ts';
import { refundAttempt } from '../shared/provider-changes.ts';
import { checkHolder, payoutAttempt, type RefundBankAccount } from './payout.ts';

/**
 * `POST /v1/transactions/{id}/refund`: the integral refund of a paid charge (SPEC 3.1, 4.8): by the
 * provider's refund (Pix, a boleto settled by its Pix), or for a boleto paid by boleto by a transfer to
 * the payer's own account (./payout.ts).
 */
export async function refundTransaction(
  ctx: ChangeContext,
  input: ChangeInput & { bankAccount: RefundBankAccount | null },
  metadata: EventMetadata,
): Promise<ChangeOutcome> {
  const toBankAccount = (state: TransactionFacts) =>
    policyOf(chargeKindOf(state.reserved)).refundNeedsBankAccount(state.paidWith);
  const precheck = (state: TransactionFacts) => {
    if (state.status === 'refunded') return;
    if (state.status !== 'paid') throw refuseState(state, 'Only a paid charge can be refunded.');
    if (toBankAccount(state) && input.bankAccount === null) {
      throw new DomainError(
        'validation_error',
        "A boleto paid by boleto is refunded to the payer's bank account.",
        { param: 'bank_account' },
      );
    }
    if (!toBankAccount(state) && input.bankAccount !== null) {
      throw new DomainError(
        'validation_error',
        'This charge is refunded by Pix; do not send a bank account.',
        {
          param: 'bank_account',
        },
      );
    }
    if (input.bankAccount !== null) checkHolder(state, input.bankAccount);
  };
  return idempotentChange(ctx, input, metadata, precheck, (state, reserve) =>
    input.bankAccount !== null && toBankAccount(state)
      ? payoutAttempt({ ...adapterContext(ctx), vault: ctx.vault }, state, input.bankAccount, reserve)
      : refundAttempt(adapterContext(ctx), state, reserve),
  );
}
