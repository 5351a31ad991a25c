import type { FeeFacts } from '../fees.ts';
import type {
  BoletoOptions,
  Diagnostics,
  MaskedCard,
  RefundEvidence,
  TransactionArtifacts,
  TransactionRequestSnapshot,
  VaultReference,
} from './events.ts';
import type { ChargeMethod, RefundRoute, TransactionStatus } from './vocabulary.ts';

/** The commands of a charge (SPEC 3.1, 4.6-4.8), as the command layer builds them. */

export interface ReserveTransaction {
  readonly kind: 'reserve';
  readonly transactionId: string;
  readonly tenantId: string;
  readonly livemode: boolean;
  readonly method: ChargeMethod;
  readonly amount: number;
  readonly reference: string;
  readonly description: string;
  readonly costCenterId: string | null;
  readonly callbackUrl: string | null;
  readonly providerId: string | null;
  readonly subaccountId: string | null;
  readonly environment: 'sandbox' | 'production';
  readonly simulated: boolean;
  readonly idempotencyKeySha256: string;
  /** Pix: effective seconds; boleto: null. */
  readonly expiresIn: number | null;
  readonly boleto: BoletoOptions | null;
  /** Card: the masked card and installments; null for the other methods. */
  readonly creditCard?: { readonly card: MaskedCard; readonly installments: number } | null;
  /** Pix Automatic debit (SPEC 4.11): its authorization and scheduled due date; null for other charges. */
  readonly pixAutomatic?: { readonly authorizationId: string; readonly dueDate: string } | null;
  /** Issue 28 item 4: the fees resolved before reservation (absent: none recorded, as on older history). */
  readonly fees?: FeeFacts | undefined;
  readonly request: TransactionRequestSnapshot;
  readonly providerRequest: Readonly<Record<string, unknown>> | null;
}

/** The provider answered at creation with an open charge. */
export interface RecordIssued {
  readonly kind: 'record_issued';
  readonly artifacts: TransactionArtifacts;
}
/** A card authorized and captured at creation (SPEC 4.9): paid at once, with the card it kept, if any. */
export interface RecordCaptured {
  readonly kind: 'record_captured';
  readonly providerReference: string;
  readonly cardId: string | null;
}
/** The provider confirmed a refusal (also when its error flag is false but the charge status is a failure). */
export interface RecordRefused {
  readonly kind: 'record_refused';
  readonly failureCode: string;
  readonly providerReference: string | null;
  readonly diagnostics: Diagnostics;
}
/** Timeout, incomplete answer or unreliable outcome at creation. */
export interface RecordUncertain {
  readonly kind: 'record_uncertain';
  readonly providerReference: string | null;
  readonly diagnostics: Diagnostics;
}
/** The reconciler: a charge left `processing` (crash between reserve and record) becomes `unknown`. */
export interface MarkUnknown {
  readonly kind: 'mark_unknown';
  /** Only a reservation older than this is marked; a younger one is left alone (no-op). */
  readonly timeoutSeconds: number;
}
export interface SimulatePaid {
  readonly kind: 'simulate_paid';
}
export interface SimulateExpired {
  readonly kind: 'simulate_expired';
}

/**
 * A refresh result. `observedStatus` is the local status the refresh read before it queried the provider:
 * a result based on an older status is dropped (no-op), so concurrent refreshes cannot overwrite a newer
 * confirmation (SPEC 3.1 "the update is conditioned on the previous status").
 */
interface RefreshBase {
  readonly observedStatus: TransactionStatus;
}
/** The provider reports the charge open, with its current artifacts (they confirm an `unknown` charge). */
export interface RefreshPending extends RefreshBase {
  readonly kind: 'refresh_pending';
  readonly artifacts: TransactionArtifacts;
}
/** Boleto provider status 2: a payment intent, not a settlement. */
export interface RefreshProcessing extends RefreshBase {
  readonly kind: 'refresh_processing';
  readonly providerReference: string | null;
}
export interface RefreshPaid extends RefreshBase {
  readonly kind: 'refresh_paid';
  readonly providerReference: string | null;
  readonly paidWith: ChargeMethod;
  /** Both the boleto and its Pix were paid (the Pix is refunded automatically). */
  readonly duplicatePayment: boolean;
}
/**
 * `provider`: the provider reports the charge expired (for a real boleto, the bank's write-off).
 * `deadline`: no provider status; expired only when `expires_at` has passed, for Pix or simulated charges.
 */
export interface RefreshExpired extends RefreshBase {
  readonly kind: 'refresh_expired';
  readonly source: 'provider' | 'deadline';
  readonly providerReference: string | null;
}
/**
 * The provider reports a charge that failed after it was issued: a Pix Automatic debit the payer's bank
 * rejected or that was cancelled before its due date (BCB `REJEITADA`, `CANCELADA`). Only a kind whose
 * policy says it `failsAfterIssue`; any other charge refuses it.
 */
export interface RefreshFailed extends RefreshBase {
  readonly kind: 'refresh_failed';
  readonly providerReference: string | null;
  readonly failureCode: 'debit_rejected' | 'debit_cancelled';
}
export interface RefreshRefunded extends RefreshBase {
  readonly kind: 'refresh_refunded';
  readonly providerReference: string | null;
}
/**
 * The boleto's Pix, read after creation (SPEC 4.2: slow Pix filled by a later read, never emitted again).
 * Applied once, only while the boleto is pending and has no Pix yet; elsewhere a no-op.
 */
export interface RefreshBoletoPix extends RefreshBase {
  readonly kind: 'refresh_boleto_pix';
  readonly providerReference: string | null;
  readonly boletoPixCopyPaste: string;
  readonly boletoPixExpiresAt: string;
}
/**
 * A boleto already recorded paid, read as paid by both the boleto and its Pix (the second payment came after
 * the first was recorded): SPEC 2.2 "Double payment gives `boleto` and the Pix is refunded".
 */
export interface RefreshDuplicatePayment extends RefreshBase {
  readonly kind: 'refresh_duplicate_payment';
  readonly providerReference: string | null;
}
/** The provider's query by reference found exactly one charge of this `unknown` transaction: its id. */
export interface RefreshReferenceFound extends RefreshBase {
  readonly kind: 'refresh_reference_found';
  readonly providerReference: string;
}
/**
 * Claim the next automatic refund of a double payment's Pix before calling the provider. `observedAttempts`
 * is the count read before the call was decided: a claim based on an older count is dropped (no-op), so two
 * concurrent refreshes never both call.
 */
export interface ClaimDuplicateRefund {
  readonly kind: 'claim_duplicate_refund';
  readonly observedAttempts: number;
  /** An unanswered claim is re-made only this long after it (the provider call timeout): never two in flight. */
  readonly retryAfterMs: number;
}
/** The claimed refund is confirmed: by the call (`refund`) or by a read showing the Pix returned (`provider`). */
export interface RecordDuplicateRefund {
  readonly kind: 'record_duplicate_refund';
  readonly attempt: number;
  readonly source: 'refund' | 'provider';
}
export interface RecordDuplicateRefundRefused {
  readonly kind: 'record_duplicate_refund_refused';
  readonly attempt: number;
  readonly diagnostics: Diagnostics;
}
/**
 * Reserve a SPEC 4.8 refund before the provider is called: appended with the version that was read, so of
 * two concurrent requests one reserves and the other is 409 refund_in_progress, never a second call.
 */
export interface RequestRefund {
  readonly kind: 'request_refund';
  /** How the money goes back (absent: `provider`, its refund API). */
  readonly route?: RefundRoute;
  /** A boleto paid by boleto: the payer's account in the vault, by reference and keyed hash. */
  readonly bankAccount?: VaultReference;
}
/** The provider accepted the payout's transfer (issue 22 item 4): polled until transferred or returned. */
export interface RecordPayoutSent {
  readonly kind: 'record_payout_sent';
  readonly transferId: string;
}
/** No payout will be made (refused, or two transfers found): a person completes or cancels the refund. */
export interface HandRefundToOperator {
  readonly kind: 'hand_refund_to_operator';
  readonly diagnostics: Diagnostics;
}
/** The bank returned the payout's transfer: refund failed, awaiting a person (bank data kept). */
export interface RecordPayoutReturned {
  readonly kind: 'record_payout_returned';
  readonly diagnostics: Diagnostics;
}
/** A person returned the money outside the provider and records its evidence (panel). */
export interface CompleteRefund {
  readonly kind: 'complete_refund';
  readonly evidence: RefundEvidence;
}
/** A person closes a refund awaiting an operator without returning money, with a reason. */
export interface CancelRefund {
  readonly kind: 'cancel_refund';
  readonly reason: string;
}
/** A super_admin reads the payer's bank account of a pending refund: recorded, as every such read. */
export interface ViewRefundBankAccount {
  readonly kind: 'view_refund_bank_account';
}
/** Reserve a due-date change before the provider is called (409 change_in_progress while one is open). */
export interface RequestDueDateChange {
  readonly kind: 'request_due_date_change';
  readonly dueDate: string;
}
/** The provider confirmed an integral refund requested through SPEC 4.8 (or the payout's transfer). */
export interface RefundTransaction {
  readonly kind: 'refund';
  readonly refundStatus: 'succeeded';
  /** Absent: `refund`. `payout`: the transfer to the payer's account is confirmed, with its evidence. */
  readonly source?: 'refund' | 'payout';
  readonly evidence?: RefundEvidence;
}
export interface ChangeDueDate {
  readonly kind: 'change_due_date';
  readonly dueDate: string;
  /** The deadline the provider computed for the new date (a simulated `cancel_after_due` boleto). */
  readonly expiresAt: string | null;
  /** The provider's new boleto numbers and Pix for the new date (a provider boleto); absent: unchanged. */
  readonly artifacts?: BoletoChangeArtifacts;
}
export type BoletoChangeArtifacts = Pick<
  TransactionArtifacts,
  | 'boleto_digitable_line'
  | 'boleto_barcode'
  | 'boleto_pix_copy_paste'
  | 'boleto_pix_expires_at'
  | 'boleto_details'
>;
/** The provider's answer to a refund was uncertain (timeout, reset, 5xx): refund.status `pending`. */
export interface RefundUnconfirmed {
  readonly kind: 'refund_unconfirmed';
  readonly diagnostics: Diagnostics;
  /** The reconciler: only a reservation older than this, with no answer recorded (a crash); else a no-op. */
  readonly staleAfterSeconds?: number;
}
/** The provider refused the refund: the charge stays paid, refund.status `failed`. */
export interface RefundRefused {
  readonly kind: 'refund_refused';
  readonly diagnostics: Diagnostics;
}
/** The provider's answer to a due-date change was uncertain: the change is pending. */
export interface DueDateUnconfirmed {
  readonly kind: 'due_date_unconfirmed';
  readonly dueDate: string;
  readonly diagnostics: Diagnostics;
  /** As for RefundUnconfirmed: only a reservation older than this with no answer recorded. */
  readonly staleAfterSeconds?: number;
}
/** The provider refused the due-date change: the date stays, no change is pending. */
export interface DueDateRefused {
  readonly kind: 'due_date_refused';
  readonly dueDate: string;
  readonly diagnostics: Diagnostics;
}

export type RefreshCommand =
  | RefreshPending
  | RefreshProcessing
  | RefreshPaid
  | RefreshExpired
  | RefreshFailed
  | RefreshRefunded
  | RefreshBoletoPix
  | RefreshReferenceFound
  | RefreshDuplicatePayment;
export type TransactionCommand =
  | ReserveTransaction
  | RecordIssued
  | RecordCaptured
  | RecordRefused
  | RecordUncertain
  | MarkUnknown
  | SimulatePaid
  | SimulateExpired
  | RefreshCommand
  | RequestRefund
  | RefundTransaction
  | RequestDueDateChange
  | ChangeDueDate
  | ClaimDuplicateRefund
  | RecordDuplicateRefund
  | RecordDuplicateRefundRefused
  | RefundUnconfirmed
  | RefundRefused
  | DueDateUnconfirmed
  | DueDateRefused
  | RecordPayoutSent
  | RecordPayoutReturned
  | HandRefundToOperator
  | CompleteRefund
  | CancelRefund
  | ViewRefundBankAccount;
export type TransactionCommandKind = TransactionCommand['kind'];

/** Which command kinds are refresh results (subject to the staleness rule). */
export function isRefresh(command: TransactionCommand): command is RefreshCommand {
  return command.kind.startsWith('refresh_');
}
