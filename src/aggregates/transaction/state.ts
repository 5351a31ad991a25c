import {
  type Diagnostics,
  NO_ARTIFACTS,
  type TransactionArtifacts,
  type TransactionEvent,
  type TransactionReservedData,
  type VaultReference,
} from './events.ts';
import { STATUS_AFTER, statusAfter } from './status.ts';
import type { ChargeMethod, RefundRoute, RefundStatus, TransactionStatus } from './vocabulary.ts';

export interface TransactionFacts {
  readonly status: TransactionStatus;
  readonly reserved: TransactionReservedData;
  readonly artifacts: TransactionArtifacts;
  readonly failureCode: string | null;
  readonly diagnostics: Diagnostics;
  readonly paidWith: ChargeMethod | null;
  readonly paidAt: string | null;
  readonly duplicatePaymentAt: string | null;
  /** SPEC 4.8 `refund.status`: `pending` while an uncertain refund awaits settlement, `failed` once refused. */
  readonly refundStatus: RefundStatus | null;
  readonly boletoDueDate: string | null;
  /** The automatic refund of the Pix of a boleto paid twice (SPEC 2.2); null when there was no double payment. */
  readonly duplicateRefund: DuplicateRefund | null;
  /** A due-date change reserved or left uncertain, awaiting its outcome (never sent twice). */
  readonly pendingDueDate: string | null;
  /** When the refund still pending was reserved (null: none, or pending from before reservations). */
  readonly refundRequestedAt: string | null;
  /** The refund reservation has no recorded answer yet: a provider call may be in flight. */
  readonly refundInFlight: boolean;
  /** How the last refund requested returns the money; `operator` also after a returned transfer. */
  readonly refundRoute: RefundRoute | null;
  /** The payout's transfer at the provider, once it accepted it. */
  readonly refundTransferId: string | null;
  /** The payer's bank account of the last refund requested, in the personal-data vault. */
  readonly refundVault: VaultReference | null;
  /** When the due-date change still pending was reserved (null: none, or from before reservations). */
  readonly dueDateRequestedAt: string | null;
  /** The due-date change reservation has no recorded answer yet. */
  readonly dueDateInFlight: boolean;
  /** Something after the reservation was recorded (an answer or a refresh): the reconciler leaves it alone. */
  readonly answered: boolean;
  /** Card: the stored card (`card_…`) the charge used or saved; null otherwise. */
  readonly cardId: string | null;
}
export type TransactionState = { readonly status: 'none' } | TransactionFacts;

/**
 * `due`: owed, nothing sent yet. `attempted`: claim `attempts` made, its outcome not recorded (uncertain, or
 * a crash): a later pass re-reads the charge before any new call. `succeeded` and `refused` are settled.
 */
export interface DuplicateRefund {
  readonly status: 'due' | 'attempted' | 'succeeded' | 'refused';
  readonly attempts: number;
  /** When the last claim was made; a new claim waits until that call has surely ended. */
  readonly attemptedAt: string | null;
}

export const NO_DIAGNOSTICS: Diagnostics = {
  provider_error_code: null,
  provider_error_message: null,
  provider_http_status: null,
};

/** The facts after an event that follows the reservation; the status comes from `statusAfter`. */
function afterReservation(state: TransactionFacts, event: TransactionEvent): TransactionFacts {
  switch (event.type) {
    case 'Transaction.Issued': {
      const { transaction_id: _, source: _s, ...artifacts } = event.data;
      return { ...state, artifacts };
    }
    case 'Transaction.Captured':
      return {
        ...state,
        paidWith: 'credit_card',
        paidAt: event.data.paid_at,
        cardId: event.data.card_id ?? state.cardId,
        artifacts: { ...state.artifacts, provider_reference: event.data.provider_reference },
      };
    case 'Transaction.Refused': {
      const { transaction_id: _, failure_code, provider_reference, ...diagnostics } = event.data;
      return {
        ...state,
        failureCode: failure_code,
        diagnostics,
        artifacts: {
          ...state.artifacts,
          provider_reference: provider_reference ?? state.artifacts.provider_reference,
        },
      };
    }
    case 'Transaction.Unconfirmed': {
      const { transaction_id: _, reason: _r, provider_reference, ...diagnostics } = event.data;
      return {
        ...state,
        diagnostics,
        artifacts: {
          ...state.artifacts,
          provider_reference: provider_reference ?? state.artifacts.provider_reference,
        },
      };
    }
    case 'Transaction.Paid':
      return {
        ...state,
        paidWith: event.data.paid_with,
        paidAt: event.data.paid_at,
        duplicatePaymentAt: event.data.duplicate_payment_at,
        duplicateRefund:
          event.data.duplicate_payment_at === null ? null : { status: 'due', attempts: 0, attemptedAt: null },
      };
    case 'Transaction.Refunded':
      return { ...state, refundStatus: event.data.refund_status, ...NO_REFUND_REQUEST };
    case 'Transaction.DueDateChanged': {
      const { transaction_id: _, boleto_due_date, previous_due_date: _p, ...changed } = event.data;
      const artifacts = Object.fromEntries(Object.entries(changed).filter(([, v]) => v !== undefined));
      return {
        ...state,
        boletoDueDate: boleto_due_date,
        ...NO_DUE_DATE_REQUEST,
        artifacts: { ...state.artifacts, ...artifacts },
      };
    }
    case 'Transaction.BoletoPixIssued': {
      const { boleto_pix_copy_paste, boleto_pix_expires_at } = event.data;
      return { ...state, artifacts: { ...state.artifacts, boleto_pix_copy_paste, boleto_pix_expires_at } };
    }
    case 'Transaction.ProviderReferenceFound':
      return {
        ...state,
        artifacts: { ...state.artifacts, provider_reference: event.data.provider_reference },
      };
    case 'Transaction.DuplicatePaymentFound':
      return {
        ...state,
        paidWith: event.data.paid_with,
        duplicatePaymentAt: event.data.duplicate_payment_at,
        duplicateRefund: { status: 'due', attempts: 0, attemptedAt: null },
      };
    case 'Transaction.DuplicateRefundAttempted':
      return {
        ...state,
        duplicateRefund: {
          status: 'attempted',
          attempts: event.data.attempt,
          attemptedAt: event.data.attempted_at,
        },
      };
    case 'Transaction.DuplicateRefunded':
      return { ...state, duplicateRefund: settled(state, 'succeeded', event.data.attempt) };
    case 'Transaction.DuplicateRefundRefused':
      return { ...state, duplicateRefund: settled(state, 'refused', event.data.attempt) };
    case 'Transaction.RefundRequested':
      return {
        ...state,
        refundStatus: 'pending',
        refundRequestedAt: event.data.requested_at,
        // A refund left to a person calls nothing: nothing is in flight.
        refundInFlight: event.data.route !== 'operator',
        refundRoute: event.data.route ?? 'provider',
        refundTransferId: null,
        refundVault: event.data.bank_account ?? null,
      };
    case 'Transaction.RefundPayoutSent':
      return { ...state, refundInFlight: false, refundTransferId: event.data.transfer_id };
    case 'Transaction.RefundHandedToOperator':
      return { ...state, refundStatus: 'pending', refundInFlight: false, refundRoute: 'operator' };
    case 'Transaction.RefundCancelled':
      return { ...state, refundStatus: 'failed', ...NO_REFUND_REQUEST, refundRoute: null };
    case 'Transaction.RefundBankAccountViewed':
      return state;
    case 'Transaction.RefundUnconfirmed':
      return { ...state, refundStatus: 'pending', refundInFlight: false };
    case 'Transaction.RefundRefused':
      return { ...state, refundStatus: 'failed', ...NO_REFUND_REQUEST };
    case 'Transaction.RefundPayoutReturned':
      // The bank gave the transfer back: failed, and it waits for a person with the bank data kept.
      return { ...state, refundStatus: 'failed', ...NO_REFUND_REQUEST, refundRoute: 'operator' };
    case 'Transaction.DueDateChangeRequested':
      return {
        ...state,
        pendingDueDate: event.data.boleto_due_date,
        dueDateRequestedAt: event.data.requested_at,
        dueDateInFlight: true,
      };
    case 'Transaction.DueDateChangeUnconfirmed':
      return { ...state, pendingDueDate: event.data.boleto_due_date, dueDateInFlight: false };
    case 'Transaction.DueDateChangeRefused':
      return { ...state, ...NO_DUE_DATE_REQUEST };
  }
  return state;
}

const NO_REFUND_REQUEST = { refundRequestedAt: null, refundInFlight: false } as const;
const NO_DUE_DATE_REQUEST = {
  pendingDueDate: null,
  dueDateRequestedAt: null,
  dueDateInFlight: false,
} as const;

function settled(
  state: TransactionFacts,
  status: 'succeeded' | 'refused',
  attempts: number,
): DuplicateRefund {
  return { status, attempts, attemptedAt: state.duplicateRefund?.attemptedAt ?? null };
}

export const initialState: TransactionState = { status: 'none' };

/** The charge after one more event: the facts it records, the status `statusAfter` gives it. */
export function evolve(state: TransactionState, event: TransactionEvent): TransactionState {
  if (event.type === 'Transaction.Reserved') {
    return {
      status: STATUS_AFTER[event.type],
      reserved: event.data,
      artifacts: NO_ARTIFACTS,
      failureCode: null,
      diagnostics: NO_DIAGNOSTICS,
      paidWith: null,
      paidAt: null,
      duplicatePaymentAt: null,
      refundStatus: null,
      boletoDueDate: event.data.boleto?.due_date ?? null,
      duplicateRefund: null,
      ...NO_REFUND_REQUEST,
      ...NO_DUE_DATE_REQUEST,
      refundRoute: null,
      refundTransferId: null,
      refundVault: null,
      answered: false,
      cardId: event.data.credit_card?.card.card_id ?? null,
    };
  }
  if (state.status === 'none') return state;
  return {
    ...afterReservation(state, event),
    status: statusAfter(event.type) ?? state.status,
    answered: true,
  };
}
