import type { Decider } from './decider.ts';
import type { TransactionCommand } from './transaction/commands.ts';
import { decide } from './transaction/decide.ts';
import type { TransactionEvent } from './transaction/events.ts';
import { evolve, initialState, type TransactionState } from './transaction/state.ts';

/**
 * The transaction aggregate (SPEC 2.2, 2.3, 3.1; stream `transaction-<txn_id>`): the decider assembled from
 * its parts under `transaction/`, and the names the rest of the code reads. The parts import downward
 * (vocabulary, events, state, commands, table, status, policies, emit, decide) and never this file.
 */
export const transaction: Decider<TransactionCommand, TransactionEvent, TransactionState> = {
  initialState,
  evolve,
  decide,
};

/** Re-exported for the read models that count business days (DESIGN.md "Conventions"). */
export { saoPauloDate } from './business-date.ts';
export {
  type BoletoChangeArtifacts,
  type CancelRefund,
  type ChangeDueDate,
  type ClaimDuplicateRefund,
  type CompleteRefund,
  type DueDateRefused,
  type DueDateUnconfirmed,
  type HandRefundToOperator,
  isRefresh,
  type MarkUnknown,
  type RecordCaptured,
  type RecordDuplicateRefund,
  type RecordDuplicateRefundRefused,
  type RecordIssued,
  type RecordPayoutReturned,
  type RecordPayoutSent,
  type RecordRefused,
  type RecordUncertain,
  type RefreshBoletoPix,
  type RefreshCommand,
  type RefreshDuplicatePayment,
  type RefreshExpired,
  type RefreshPaid,
  type RefreshPending,
  type RefreshProcessing,
  type RefreshReferenceFound,
  type RefreshRefunded,
  type RefundRefused,
  type RefundTransaction,
  type RefundUnconfirmed,
  type RequestDueDateChange,
  type RequestRefund,
  type ReserveTransaction,
  type SimulateExpired,
  type SimulatePaid,
  type TransactionCommand,
  type TransactionCommandKind,
  type ViewRefundBankAccount,
} from './transaction/commands.ts';
export {
  addressFields,
  type BoletoDetails,
  type BoletoOptions,
  boletoDetails,
  type Diagnostics,
  type MaskedCard,
  NO_ARTIFACTS,
  type RefundEvidence,
  type TransactionArtifacts,
  type TransactionEvent,
  type TransactionEventType,
  type TransactionRequestSnapshot,
  type TransactionReservedData,
  transactionEvents,
  type VaultReference,
} from './transaction/events.ts';
export {
  CHARGE_POLICIES,
  type ChargePolicy,
  type MethodFields,
  type MethodRefusal,
  policyFor,
  policyOf,
} from './transaction/policies/index.ts';
export { sameReservation } from './transaction/reserve.ts';
export type { DuplicateRefund, TransactionFacts, TransactionState } from './transaction/state.ts';
export { STATUS_AFTER, statusAfter } from './transaction/status.ts';
export { transactionTransitions } from './transaction/table.ts';
export {
  CHARGE_KINDS,
  CHARGE_METHODS,
  type ChargeKind,
  type ChargeMethod,
  chargeKindOf,
  REFUND_ROUTES,
  type RefundRoute,
  type RefundStatus,
  STORED_METHODS,
  type StoredMethod,
  TRANSACTION_STATUSES,
  type TransactionStatus,
} from './transaction/vocabulary.ts';
