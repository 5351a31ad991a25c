import { DomainError } from '../../../aggregates/decider.ts';
import type { TransactionFacts } from '../../../aggregates/transaction.ts';
import { policyOf } from '../../../aggregates/transaction-policies/index.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import {
  adapterContext,
  type ChangeContext,
  type ChangeInput,
  type ChangeOutcome,
  idempotentChange,
  refuseState,
} from '../shared/idempotent-change.ts';
import { type BankAccount, refundAttempt } from '../shared/provider-changes.ts';

/** `POST /v1/transactions/{id}/refund`: the integral refund of a paid charge (SPEC 3.1, 4.8). */
export async function refundTransaction(
  ctx: ChangeContext,
  input: ChangeInput & { bankAccount: BankAccount | null },
  metadata: EventMetadata,
): Promise<ChangeOutcome> {
  const precheck = (state: TransactionFacts) => {
    if (state.status === 'refunded') return;
    if (state.status !== 'paid') throw refuseState(state, 'Only a paid charge can be refunded.');
    const toBankAccount = policyOf(state.reserved.method).refundNeedsBankAccount(state.paidWith);
    if (toBankAccount && input.bankAccount === null) {
      throw new DomainError(
        'validation_error',
        "A boleto paid by boleto is refunded to the payer's bank account.",
        {
          param: 'bank_account',
        },
      );
    }
    if (!toBankAccount && input.bankAccount !== null) {
      throw new DomainError(
        'validation_error',
        'This charge is refunded by Pix; do not send a bank account.',
        {
          param: 'bank_account',
        },
      );
    }
  };
  return idempotentChange(ctx, input, metadata, precheck, (state, reserve) =>
    refundAttempt(adapterContext(ctx), state, input.bankAccount, reserve),
  );
}
