import { z } from 'zod';
import type { ErrorCode } from '../aggregates/errors.ts';
import { defineEvent, parsedWith } from '../events/event-registry.ts';
import { addDays, isRealDate, saoPauloDate } from './business-date.ts';
import { type DecideContext, type Decider, DomainError, type DomainEvent } from './decider.ts';
import { policyOf } from './transaction-policies/index.ts';
import { STATUS_AFTER, statusAfter } from './transaction-status.ts';
import type { TransitionTable } from './transition-table.ts';

/**
 * A charge (SPEC 2.2, 2.3, 3.1; stream `transaction-<txn_id>`, ids from `newId('txn')` in the command).
 * Reserve -> call -> record outcome (DESIGN.md): the reservation is committed before any provider call, and
 * `unknown` is a real state, resolved only by a refresh that finds the charge at the provider.
 *
 * Event contract (all payloads carry `transaction_id`; timestamps are ISO 8601 UTC taken from ctx.now):
 *   Transaction.Reserved v1            -> processing. The facts of the charge: tenant_id, livemode, method,
 *       amount, currency, reference, description, cost_center_id, callback_url, provider_id, subaccount_id,
 *       environment, simulated, idempotency_key_sha256 (never the key), expires_in (pix) | boleto options,
 *       reserved_at; plus the SPEC 2.3 snapshot `request` (normalized, with customer: personal data) and
 *       `provider_request` (null for the simulator).
 *   Transaction.Issued v1              -> pending. The provider's artifacts: provider_reference,
 *       pix_copy_paste, pix_qr_code, expires_at, boleto_url, boleto_digitable_line, boleto_barcode,
 *       boleto_pix_copy_paste, boleto_pix_expires_at, and (optional, absent in older events) boleto_details,
 *       the provider's FEBRABAN fields for the PDF; source `creation` | `refresh`.
 *   Transaction.Refused v1             -> failed. failure_code, provider_reference, sanitized diagnostics
 *       provider_error_code (1-10 digits), provider_error_message (static, <= 400), provider_http_status.
 *   Transaction.Unconfirmed v1         -> unknown. reason `uncertain_answer` | `processing_timeout`,
 *       provider_reference (when an incomplete answer had one), sanitized diagnostics.
 *   Transaction.PaymentProcessing v1   -> processing. A boleto intent (provider status 2), not a settlement.
 *   Transaction.AwaitingPayment v1     -> pending. The provider reports the boleto open again.
 *   Transaction.Paid v1                -> paid. paid_with `pix` | `boleto`, paid_at, duplicate_payment_at,
 *       source `provider` | `simulation`.
 *   Transaction.Expired v1             -> expired. source `provider` | `deadline` | `simulation`.
 *   Transaction.Refunded v1            -> refunded. refund_status, source `refund` (the provider's refund) |
 *       `provider` (a read shows it) | `payout` (a transfer to the payer's account confirmed) | `operator` (a
 *       person completed it); `evidence` { reference, paid_on, amount } for a payout or an operator.
 *   Transaction.DueDateChanged v1      -> pending (stays). boleto_due_date, previous_due_date, and the
 *       provider's new `expires_at` (absent in events written before it was recorded: deadline unchanged);
 *       for a provider boleto also the new line, barcode, boleto Pix and boleto_details (absent: unchanged).
 *       Settles a pending change.
 *   Transaction.BoletoPixIssued v1     -> pending (stays). The boleto's Pix read after creation (SPEC 4.2 "If
 *       the Pix is slow ... appears in a later GET"): boleto_pix_copy_paste, boleto_pix_expires_at.
 *   Transaction.ProviderReferenceFound v1 -> unknown (stays). The external id of an `unknown` charge found
 *       by the provider's query by reference (exactly one remote charge, same amount): provider_reference.
 *   Transaction.DuplicatePaymentFound v1 -> paid (stays). A boleto recorded paid once, read later as paid by
 *       both the boleto and its Pix: paid_with `boleto`, duplicate_payment_at (SPEC 2.2).
 *   Transaction.DuplicateRefundAttempted v1 -> paid (stays). A claim made before the automatic refund of the
 *       Pix of a boleto paid twice (SPEC 2.2 `duplicate_payment_at`): attempt (1, 2, ...). Only the refresh
 *       whose append wins the claim calls the provider.
 *   Transaction.DuplicateRefunded v1   -> paid (stays). attempt, source `refund` (the provider confirmed the
 *       call) | `provider` (a later read shows the Pix already returned).
 *   Transaction.DuplicateRefundRefused v1 -> paid (stays). attempt and sanitized diagnostics; not retried
 *       automatically.
 *   Transaction.RefundRequested v1     -> paid (stays), refund.status `pending`: the reservation of a SPEC 4.8
 *       refund, appended with the stream's version before the provider is called (issue 22: one provider
 *       operation per intent). While it has no outcome, another refund is 409 refund_in_progress.
 *       requested_at.
 *   Transaction.RefundUnconfirmed v1   -> paid (stays), refund.status `pending`: the provider's answer to a
 *       refund was uncertain (or the reservation outlived any call); the reconciler reads the provider,
 *       nothing is sent again.
 *   Transaction.RefundRefused v1       -> paid (stays), refund.status `failed`: the provider refused it (or the
 *       provider shows it never happened); a new request may be made.
 *   Transaction.RefundPayoutSent v1    -> paid (stays), refund pending: the provider accepted the transfer to
 *       the payer's account (issue 22 item 4); transfer_id, polled until transferred or returned.
 *   Transaction.RefundHandedToOperator v1 -> paid (stays), refund pending: no payout will be made (the
 *       provider refused it, or two transfers were found); a person completes or cancels it. Diagnostics.
 *   Transaction.RefundPayoutReturned v1 -> paid (stays), refund failed: the bank returned the transfer; it
 *       awaits a person (route `operator`), who may complete it by other means. Diagnostics.
 *   Transaction.RefundCancelled v1     -> paid (stays), refund failed: a person cancelled it; reason.
 *   Transaction.RefundBankAccountViewed v1 -> any (stays): a super_admin read the payer's bank account
 *       (every read audited); vault_id.
 *   RefundRequested also carries `route` (`provider` | `payout` | `operator`, absent: provider) and, for a
 *   boleto paid by boleto, `bank_account` { vault_id, hmac }: a reference to the personal-data vault and a
 *   keyed hash, never the account itself.
 *   Transaction.DueDateChangeRequested v1 -> pending (stays): the reservation of a due-date change,
 *       boleto_due_date, requested_at; while it is open another change is 409 change_in_progress.
 *   Transaction.DueDateChangeUnconfirmed v1 -> pending (stays), a pending change to `boleto_due_date`.
 *   Transaction.DueDateChangeRefused v1     -> pending (stays), the provider refused the change; no pending one.
 *   The Unconfirmed and Refused events carry the sanitized diagnostics of that answer; the charge's own
 *   diagnostics are kept.
 */

export const TRANSACTION_STATUSES = [
  'processing',
  'pending',
  'paid',
  'expired',
  'failed',
  'unknown',
  'refunded',
] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];
export type RefundStatus = 'pending' | 'succeeded' | 'failed';
export const CHARGE_METHODS = ['pix', 'boleto'] as const;
export type ChargeMethod = (typeof CHARGE_METHODS)[number];

const MAX_AMOUNT = 100_000_000;
const txnId = z.string().startsWith('txn_');
const instant = z.iso.datetime({ offset: true });
const isoDate = z.iso.date();
const digits = (min: number, max: number) => z.string().regex(new RegExp(`^[0-9]{${min},${max}}$`));

/** SPEC 2.2 rules 2-3, SPEC 8 "Diagnostics": sanitized, value-or-null, never raw provider text. */
const diagnostics = {
  provider_error_code: digits(1, 10).nullable(),
  provider_error_message: z.string().max(400).nullable(),
  provider_http_status: z.number().int().min(100).max(599).nullable(),
};
const diagnosticsSchema = z.strictObject(diagnostics);
export type Diagnostics = z.infer<typeof diagnosticsSchema>;

const address = z.strictObject({
  zip_code: z.string(),
  street: z.string(),
  number: z.string(),
  complement: z.string().optional(),
  district: z.string(),
  city: z.string(),
  state: z.string(),
});
const customer = z.strictObject({
  name: z.string().optional(),
  document: z.string().optional(),
  email: z.string().optional(),
  phone: z.string().optional(),
  address: address.optional(),
});
const boletoOptions = z.strictObject({
  due_date: isoDate,
  instruction: z.string().nullable(),
  penalty_rate: z.number().min(0).max(100),
  interest_rate: z.number().min(0).max(100),
  cancel_after_due: z.boolean(),
  days_before_cancel: z.number().int().min(0).max(120),
});
export type BoletoOptions = z.infer<typeof boletoOptions>;

/** SPEC 2.3 `request`: the normalized creation object, tenant resolved, defaults applied, original values. */
const requestSnapshot = z.strictObject({
  tenant_id: z.string(),
  method: z.enum(CHARGE_METHODS),
  amount: z.number().int(),
  reference: z.string(),
  description: z.string(),
  customer,
  expires_in: z.number().int().optional(),
  boleto: z
    .strictObject({
      due_date: isoDate,
      instruction: z.string().optional(),
      penalty_rate: z.number().optional(),
      interest_rate: z.number().optional(),
      cancel_after_due: z.boolean().optional(),
      days_before_cancel: z.number().int().optional(),
    })
    .optional(),
  cost_center_id: z.string().optional(),
  callback_url: z.string().optional(),
});
export type TransactionRequestSnapshot = z.infer<typeof requestSnapshot>;

const reservedData = z.strictObject({
  transaction_id: txnId,
  tenant_id: z.string().startsWith('ten_'),
  livemode: z.boolean(),
  method: z.enum(CHARGE_METHODS),
  amount: z.number().int().min(1).max(MAX_AMOUNT),
  currency: z.literal('BRL'),
  reference: z.string(),
  description: z.string(),
  cost_center_id: z.string().nullable(),
  callback_url: z.string().nullable(),
  /** null only for test-mode charges, which never reach a provider (SPEC 1, 5.2). */
  provider_id: z.string().startsWith('prv_').nullable(),
  subaccount_id: z.string().nullable(),
  environment: z.enum(['sandbox', 'production']),
  simulated: z.boolean(),
  /** sha256 of the Idempotency-Key: links the charge to its claim; the key itself is never stored here. */
  idempotency_key_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** Pix: effective seconds (default 3600). Boleto: null. */
  expires_in: z.number().int().min(60).max(86_400).nullable(),
  /** Boleto: effective options (defaults applied). Pix: null. */
  boleto: boletoOptions.nullable(),
  reserved_at: instant,
  request: requestSnapshot,
  /** The body prepared for the provider by the issuance builders; null for the simulator and test mode. */
  provider_request: z.record(z.string(), z.unknown()).nullable(),
});
export type TransactionReservedData = z.infer<typeof reservedData>;

/**
 * A bank number as a boleto prints it (nosso número, código do beneficiário): digit groups split by `.`, `/`
 * or `-`, at most one check character at the end (Bradesco's `P`). No room for words, so no personal data.
 */
const bankNumber = z
  .string()
  .max(30)
  .regex(/^[0-9]+(?:[./-][0-9]+)*(?:-[0-9A-Z])?$/);

/**
 * The FEBRABAN fields of a boleto the provider issued (wire doc 2.6: `BankSlipNumber`, `Agency`/`AgencyDV`,
 * `CodeBeneficiary`/`CodeAssignor`, `Wallet`, `DocType`, `Accept`), sanitized by the adapter; printed on the
 * boleto PDF only, never in the Transaction view (SPEC 2.2 has no such fields). Null: not given, or refused.
 */
export const boletoDetails = z.strictObject({
  our_number: bankNumber.nullable(),
  agency: z
    .string()
    .regex(/^[0-9]{1,5}$/)
    .nullable(),
  agency_dv: z
    .string()
    .regex(/^[0-9A-Z]$/)
    .nullable(),
  beneficiary_code: bankNumber.nullable(),
  wallet: z
    .string()
    .regex(/^[0-9A-Z]{1,3}$/)
    .nullable(),
  /** Espécie doc.: a FEBRABAN acronym (DM, DS, NP...) or its numeric code. */
  document_kind: z
    .string()
    .regex(/^(?:[A-Z]{2,3}|[0-9]{1,2})$/)
    .nullable(),
  accept: z.enum(['S', 'N', 'A']).nullable(),
});
export type BoletoDetails = z.infer<typeof boletoDetails>;

const artifacts = z.strictObject({
  provider_reference: z.string().min(1).nullable(),
  pix_copy_paste: z.string().nullable(),
  pix_qr_code: z.string().nullable(),
  expires_at: instant.nullable(),
  boleto_url: z.string().nullable(),
  boleto_digitable_line: digits(47, 48).nullable(),
  boleto_barcode: digits(44, 44).nullable(),
  boleto_pix_copy_paste: z.string().nullable(),
  boleto_pix_expires_at: instant.nullable(),
  /** A provider boleto's FEBRABAN fields; absent in events written before they were kept (and for a Pix). */
  boleto_details: boletoDetails.nullable().optional(),
});
export type TransactionArtifacts = z.infer<typeof artifacts>;

const issuedData = z.strictObject({
  transaction_id: txnId,
  source: z.enum(['creation', 'refresh']),
  ...artifacts.shape,
});
const refusedData = z.strictObject({
  transaction_id: txnId,
  failure_code: z.string().min(1),
  provider_reference: z.string().min(1).nullable(),
  ...diagnostics,
});
const unconfirmedData = z.strictObject({
  transaction_id: txnId,
  reason: z.enum(['uncertain_answer', 'processing_timeout']),
  provider_reference: z.string().min(1).nullable(),
  ...diagnostics,
});
const idOnly = z.strictObject({ transaction_id: txnId });
const paidData = z.strictObject({
  transaction_id: txnId,
  paid_with: z.enum(CHARGE_METHODS),
  paid_at: instant,
  duplicate_payment_at: instant.nullable(),
  source: z.enum(['provider', 'simulation']),
});
const expiredData = z.strictObject({
  transaction_id: txnId,
  source: z.enum(['provider', 'deadline', 'simulation']),
});
export const REFUND_ROUTES = ['provider', 'payout', 'operator'] as const;
export type RefundRoute = (typeof REFUND_ROUTES)[number];
const refundEvidence = z.strictObject({
  /** The end-to-end id or receipt of the transfer that returned the money (a payout: the provider's hash). */
  reference: z.string().min(1).max(200),
  paid_on: isoDate.nullable(),
  amount: z.number().int().min(1),
});
export type RefundEvidence = z.infer<typeof refundEvidence>;
const refundedData = z.strictObject({
  transaction_id: txnId,
  /** SPEC 4.8 `refund.status`; values beyond `succeeded` are not shown (docs/decisions.md "Charges"). */
  refund_status: z.enum(['succeeded']),
  source: z.enum(['refund', 'provider', 'payout', 'operator']),
  evidence: refundEvidence.optional(),
});
const dueDateChangedData = z.strictObject({
  transaction_id: txnId,
  boleto_due_date: isoDate,
  previous_due_date: isoDate,
  expires_at: instant.nullable().optional(),
  boleto_digitable_line: digits(47, 48).nullable().optional(),
  boleto_barcode: digits(44, 44).nullable().optional(),
  boleto_pix_copy_paste: z.string().nullable().optional(),
  boleto_pix_expires_at: instant.nullable().optional(),
  boleto_details: boletoDetails.nullable().optional(),
});
const refundAttemptData = z.strictObject({ transaction_id: txnId, ...diagnostics });
const vaultReference = z.strictObject({
  vault_id: z.string().min(1),
  hmac: z.string().regex(/^[0-9a-f]{64}$/),
});
export type VaultReference = z.infer<typeof vaultReference>;
const refundRequestedData = z.strictObject({
  transaction_id: txnId,
  requested_at: instant,
  route: z.enum(REFUND_ROUTES).optional(),
  bank_account: vaultReference.optional(),
});
const payoutSentData = z.strictObject({ transaction_id: txnId, transfer_id: z.string().min(1).max(100) });
const refundCancelledData = z.strictObject({ transaction_id: txnId, reason: z.string().min(3).max(500) });
const bankAccountViewedData = z.strictObject({ transaction_id: txnId, vault_id: z.string().min(1) });
const dueDateRequestedData = z.strictObject({
  transaction_id: txnId,
  boleto_due_date: isoDate,
  requested_at: instant,
});
const dueDateAttemptData = z.strictObject({
  transaction_id: txnId,
  boleto_due_date: isoDate,
  ...diagnostics,
});

const boletoPixIssuedData = z.strictObject({
  transaction_id: txnId,
  boleto_pix_copy_paste: z.string().min(1),
  boleto_pix_expires_at: instant,
});
const referenceFoundData = z.strictObject({
  transaction_id: txnId,
  provider_reference: z.string().min(1),
  source: z.enum(['query_by_reference']),
});
const duplicatePaymentFoundData = z.strictObject({
  transaction_id: txnId,
  paid_with: z.literal('boleto'),
  duplicate_payment_at: instant,
});
const attempt = z.number().int().min(1);
const duplicateRefundAttemptedData = z.strictObject({
  transaction_id: txnId,
  attempt,
  attempted_at: instant,
});
const duplicateRefundedData = z.strictObject({
  transaction_id: txnId,
  attempt: z.number().int().min(0),
  source: z.enum(['refund', 'provider']),
});
const duplicateRefundRefusedData = z.strictObject({ transaction_id: txnId, attempt, ...diagnostics });

export const transactionEvents = [
  defineEvent({ type: 'Transaction.Reserved', version: 1, schema: reservedData }),
  defineEvent({ type: 'Transaction.Issued', version: 1, schema: issuedData }),
  defineEvent({ type: 'Transaction.Refused', version: 1, schema: refusedData }),
  defineEvent({ type: 'Transaction.Unconfirmed', version: 1, schema: unconfirmedData }),
  defineEvent({ type: 'Transaction.PaymentProcessing', version: 1, schema: idOnly }),
  defineEvent({ type: 'Transaction.AwaitingPayment', version: 1, schema: idOnly }),
  defineEvent({ type: 'Transaction.Paid', version: 1, schema: paidData }),
  defineEvent({ type: 'Transaction.Expired', version: 1, schema: expiredData }),
  defineEvent({ type: 'Transaction.Refunded', version: 1, schema: refundedData }),
  defineEvent({ type: 'Transaction.DueDateChanged', version: 1, schema: dueDateChangedData }),
  defineEvent({ type: 'Transaction.BoletoPixIssued', version: 1, schema: boletoPixIssuedData }),
  defineEvent({ type: 'Transaction.ProviderReferenceFound', version: 1, schema: referenceFoundData }),
  defineEvent({ type: 'Transaction.DuplicatePaymentFound', version: 1, schema: duplicatePaymentFoundData }),
  defineEvent({
    type: 'Transaction.DuplicateRefundAttempted',
    version: 1,
    schema: duplicateRefundAttemptedData,
  }),
  defineEvent({ type: 'Transaction.DuplicateRefunded', version: 1, schema: duplicateRefundedData }),
  defineEvent({ type: 'Transaction.DuplicateRefundRefused', version: 1, schema: duplicateRefundRefusedData }),
  defineEvent({ type: 'Transaction.RefundUnconfirmed', version: 1, schema: refundAttemptData }),
  defineEvent({ type: 'Transaction.RefundRefused', version: 1, schema: refundAttemptData }),
  defineEvent({ type: 'Transaction.DueDateChangeUnconfirmed', version: 1, schema: dueDateAttemptData }),
  defineEvent({ type: 'Transaction.DueDateChangeRefused', version: 1, schema: dueDateAttemptData }),
  defineEvent({ type: 'Transaction.RefundRequested', version: 1, schema: refundRequestedData }),
  defineEvent({ type: 'Transaction.DueDateChangeRequested', version: 1, schema: dueDateRequestedData }),
  defineEvent({ type: 'Transaction.RefundPayoutSent', version: 1, schema: payoutSentData }),
  defineEvent({ type: 'Transaction.RefundHandedToOperator', version: 1, schema: refundAttemptData }),
  defineEvent({ type: 'Transaction.RefundPayoutReturned', version: 1, schema: refundAttemptData }),
  defineEvent({ type: 'Transaction.RefundCancelled', version: 1, schema: refundCancelledData }),
  defineEvent({ type: 'Transaction.RefundBankAccountViewed', version: 1, schema: bankAccountViewedData }),
];

export type TransactionEvent =
  | DomainEvent<'Transaction.Reserved', TransactionReservedData>
  | DomainEvent<'Transaction.Issued', z.infer<typeof issuedData>>
  | DomainEvent<'Transaction.Refused', z.infer<typeof refusedData>>
  | DomainEvent<'Transaction.Unconfirmed', z.infer<typeof unconfirmedData>>
  | DomainEvent<'Transaction.PaymentProcessing', z.infer<typeof idOnly>>
  | DomainEvent<'Transaction.AwaitingPayment', z.infer<typeof idOnly>>
  | DomainEvent<'Transaction.Paid', z.infer<typeof paidData>>
  | DomainEvent<'Transaction.Expired', z.infer<typeof expiredData>>
  | DomainEvent<'Transaction.Refunded', z.infer<typeof refundedData>>
  | DomainEvent<'Transaction.DueDateChanged', z.infer<typeof dueDateChangedData>>
  | DomainEvent<'Transaction.BoletoPixIssued', z.infer<typeof boletoPixIssuedData>>
  | DomainEvent<'Transaction.ProviderReferenceFound', z.infer<typeof referenceFoundData>>
  | DomainEvent<'Transaction.DuplicatePaymentFound', z.infer<typeof duplicatePaymentFoundData>>
  | DomainEvent<'Transaction.DuplicateRefundAttempted', z.infer<typeof duplicateRefundAttemptedData>>
  | DomainEvent<'Transaction.DuplicateRefunded', z.infer<typeof duplicateRefundedData>>
  | DomainEvent<'Transaction.DuplicateRefundRefused', z.infer<typeof duplicateRefundRefusedData>>
  | DomainEvent<'Transaction.RefundUnconfirmed', z.infer<typeof refundAttemptData>>
  | DomainEvent<'Transaction.RefundRefused', z.infer<typeof refundAttemptData>>
  | DomainEvent<'Transaction.DueDateChangeUnconfirmed', z.infer<typeof dueDateAttemptData>>
  | DomainEvent<'Transaction.DueDateChangeRefused', z.infer<typeof dueDateAttemptData>>
  | DomainEvent<'Transaction.RefundRequested', z.infer<typeof refundRequestedData>>
  | DomainEvent<'Transaction.DueDateChangeRequested', z.infer<typeof dueDateRequestedData>>
  | DomainEvent<'Transaction.RefundPayoutSent', z.infer<typeof payoutSentData>>
  | DomainEvent<'Transaction.RefundHandedToOperator', z.infer<typeof refundAttemptData>>
  | DomainEvent<'Transaction.RefundPayoutReturned', z.infer<typeof refundAttemptData>>
  | DomainEvent<'Transaction.RefundCancelled', z.infer<typeof refundCancelledData>>
  | DomainEvent<'Transaction.RefundBankAccountViewed', z.infer<typeof bankAccountViewedData>>;

export type TransactionEventType = TransactionEvent['type'];

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

// ---------------------------------------------------------------------------------------------- commands

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
  readonly request: TransactionRequestSnapshot;
  readonly providerRequest: Readonly<Record<string, unknown>> | null;
}

/** The provider answered at creation with an open charge. */
export interface RecordIssued {
  readonly kind: 'record_issued';
  readonly artifacts: TransactionArtifacts;
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
  | RefreshRefunded
  | RefreshBoletoPix
  | RefreshReferenceFound
  | RefreshDuplicatePayment;
export type TransactionCommand =
  | ReserveTransaction
  | RecordIssued
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

// ----------------------------------------------------------------------------------------- state table

/**
 * State table (SPEC 3.1, 4.6-4.8). Rows: status; columns: command kinds. `=` no-op (nothing appended).
 * Events are abbreviated: Reserved, Issued, Refused, Unconfirmed, PaymentProcessing (PayProc),
 * AwaitingPayment (Awaiting), Paid, Expired, Refunded, DueDateChanged (DueDate).
 *
 *  state     |reserve   |record_issued|record_refused|record_uncertain|mark_unknown  |simulate_paid|simulate_expired
 *  ----------+----------+-------------+--------------+----------------+--------------+-------------+----------------
 *  none      |Reserved  |404 not_found|404 not_found |404 not_found   |404 not_found |404 not_found|404 not_found
 *            | ->proc(c)|             |              |                |              |             |
 *  processing|repeat (i)|Issued->pend |Refused->fail |Unconfirmed->unk|Unconfirmed   |409 sim_n_a  |409 sim_n_a
 *            |          |             |              |                | ->unk (t)    |             |
 *  pending   |repeat (i)|409 conflict |409 conflict  |409 conflict    |=             |Paid (s)     |Expired (s)
 *  paid      |repeat (i)|409 conflict |409 conflict  |409 conflict    |=             |409 sim_n_a  |409 sim_n_a
 *  expired   |repeat (i)|409 conflict |409 conflict  |409 conflict    |=             |409 sim_n_a  |409 sim_n_a
 *  failed    |repeat (i)|409 conflict |409 conflict  |409 conflict    |=             |409 sim_n_a  |409 sim_n_a
 *  unknown   |repeat (i)|Issued->pend |Refused->fail |=               |=             |409 sim_n_a  |409 sim_n_a
 *  refunded  |repeat (i)|409 conflict |409 conflict  |409 conflict    |=             |409 sim_n_a  |409 sim_n_a
 *
 *  state     |refresh_pending|refresh_processing|refresh_paid |refresh_expired|refresh_refunded|refund       |change_due_date
 *  ----------+---------------+------------------+-------------+---------------+----------------+-------------+---------------
 *  none      |404 not_found  |404 not_found     |404 not_found|404 not_found  |404 not_found   |404 not_found|404 not_found
 *  processing|Awaiting (r)   |=                 |Paid (r)     |Expired (r)(e) |409 psc         |409 conflict |409 conflict
 *  pending   |=              |PayProc (b)       |Paid         |Expired (e)    |409 psc         |409 conflict |DueDate (d)
 *  paid      |409 psc        |409 psc           |=            |409 psc        |Refunded        |Refunded     |409 conflict
 *  expired   |409 psc        |409 psc           |409 psc      |=              |409 psc         |409 conflict |409 conflict
 *  failed    |409 psc        |409 psc           |409 psc      |409 psc        |409 psc         |409 conflict |409 conflict
 *  unknown   |Issued (r)     |PayProc (r)(b)    |Paid (r)     |Expired (r)(e) |409 psc         |409 conflict |409 conflict
 *  refunded  |409 psc        |409 psc           |409 psc      |409 psc        |=               |=            |409 conflict
 *
 *  state     |refresh_boleto_pix|refresh_reference_found|claim_duplicate_refund|record_duplicate_refund(_refused)
 *  ----------+------------------+-----------------------+----------------------+--------------------------------
 *  none      |404 not_found     |404 not_found          |404 not_found         |404 not_found
 *  processing|=                 |409 conflict           |409 conflict          |409 conflict
 *  pending   |BoletoPix (p)     |409 conflict           |409 conflict          |409 conflict
 *  paid      |=                 |409 conflict           |DupRefundAttempt (u)  |DupRefunded / DupRefundRefused (u)
 *  expired   |=                 |409 conflict           |409 conflict          |409 conflict
 *  failed    |=                 |409 conflict           |409 conflict          |409 conflict
 *  unknown   |=                 |RefFound (f)           |409 conflict          |409 conflict
 *  refunded  |=                 |409 conflict           |=                     |=
 *
 *  refresh_duplicate_payment: paid -> DuplicatePaymentFound (u2); none 404; every other row `=`.
 *
 *  state     |refund_unconfirmed|refund_refused|due_date_unconfirmed|due_date_refused
 *  ----------+------------------+--------------+--------------------+----------------
 *  none      |404 not_found     |404 not_found |404 not_found       |404 not_found
 *  processing|409 conflict      |409 conflict  |409 conflict        |409 conflict
 *  pending   |409 conflict      |409 conflict  |DueDatePending (w)  |DueDateRefused
 *  paid      |RefundPending (w) |RefundRefused |409 conflict        |409 conflict
 *  expired   |409 conflict      |409 conflict  |409 conflict        |409 conflict
 *  failed    |409 conflict      |409 conflict  |409 conflict        |409 conflict
 *  unknown   |409 conflict      |409 conflict  |409 conflict        |409 conflict
 *  refunded  |=                 |=             |409 conflict        |409 conflict
 *
 *  state     |request_refund     |request_due_date_change
 *  ----------+-------------------+-----------------------
 *  none      |404 not_found      |404 not_found
 *  processing|409 conflict       |409 conflict
 *  pending   |409 conflict       |DueDateRequested (q)
 *  paid      |RefundRequested (q)|409 conflict
 *  expired   |409 conflict       |409 conflict
 *  failed    |409 conflict       |409 conflict
 *  unknown   |409 conflict       |409 conflict
 *  refunded  |=                  |409 conflict
 *
 *  state     |record_payout_sent|record_payout_returned|hand_refund_to_operator|complete_refund
 *  ----------+------------------+----------------------+-----------------------+---------------
 *  none      |404 not_found     |404 not_found         |404 not_found          |404 not_found
 *  paid      |PayoutSent (o)    |PayoutReturned (o2)   |HandedToOperator (o)   |Refunded (k)
 *  refunded  |=                 |=                     |=                      |409 conflict
 *  any other |409 conflict      |409 conflict          |409 conflict           |409 conflict
 *
 *  state     |cancel_refund      |view_refund_bank_account
 *  ----------+-------------------+------------------------
 *  none      |404 not_found      |404 not_found
 *  paid      |RefundCancelled (k)|BankAccountViewed (v)
 *  any other |409 conflict       |409 conflict
 *
 *  psc = provider_status_conflict (a regression of a final state, or a refund of an unpaid charge: "only move
 *  allowed from paid" is refunded and expired/failed/refunded are never reopened); sim_n_a =
 *  simulation_not_allowed. Every refresh_* cell first applies the staleness rule: when `observedStatus` is
 *  not the current status the result is dropped (no-op), whatever the cell says.
 *  (c) creation checks: 422 validation_error for inconsistent facts, 422 provider_pix_sandbox_unsupported.
 *  (i) a repeated reserve with the same facts is a no-op (a replay); other facts are 409 idempotency_conflict.
 *  (t) only a reservation nothing answered yet, older than `timeoutSeconds`; otherwise a no-op. Never a
 *      provider call.
 *  (s) only for a simulated charge, else 409 simulation_not_allowed.
 *  (r) needs a stored external id (`provider_reference`): else 409 reconciliation_required (SPEC 3.1: no
 *      query without it). A result naming another external id is 502 provider_refresh_failed.
 *  (b) boleto only: for Pix provider status 2 is not a known status, 502 provider_refresh_failed.
 *  (e) source `deadline`: only when `expires_at` has passed, for Pix or a simulated charge; otherwise a no-op
 *      (a real boleto expires only by the bank's write-off).
 *  (d) boleto only (Pix is 409 conflict); the date must be today..today+365 in America/Sao_Paulo (422
 *      validation_error); the same date is a no-op.
 *  (p) a real boleto without its Pix yet; otherwise a no-op (the Pix is never replaced nor emitted again).
 *  (f) stores the external id when none is stored; the same id is a no-op, another is 502
 *      provider_refresh_failed. The status stays `unknown` until a read of that id is applied.
 *  (u) only for a paid charge with a double payment (`duplicate_payment_at`); the claim only when its
 *      `observedAttempts` is the current count, nothing is settled and the last claim is older than
 *      `retryAfterMs`, the results only for the current
 *      claimed attempt (`provider` also before any claim: the Pix was returned without us); else no-op.
 *  (u2) a real boleto recorded paid without a double payment; otherwise a no-op.
 *  (w) the status stays; it records the answer to the open reservation; with none open, the same pending
 *      refund or pending date again is a no-op. With `staleAfterSeconds` (the reconciler) it applies only to
 *      a reservation older than that with no answer recorded (a crash between the call and its record).
 *  (o) a payout refund (issue 22 item 4) still pending with no transfer recorded; otherwise a no-op (never
 *      two transfers recorded for one refund).
 *  (o2) a payout refund pending with its transfer recorded; otherwise a no-op.
 *  (k) only a refund awaiting an operator (route `operator`, pending, or failed after a returned transfer),
 *      else 409 conflict (exactly once: a refunded charge is 409); complete: the evidence's amount is the
 *      charge's and its date a real one not in the future, else 422 validation_error; cancel: a reason.
 *  (v) only while the charge holds a refund's bank account, else 409 conflict.
 *  (q) one at a time (issue 22): while a refund is reserved or pending another is 409 refund_in_progress,
 *      while a due-date change is, another is 409 change_in_progress; the date checks of (d) apply, and the
 *      current date with nothing pending is a no-op.
 *  Refresh results also check that Paid carries a valid `paid_with` (a Pix paid with boleto is 502
 *  provider_refresh_failed).
 */
type Table = TransitionTable<TransactionStatus, TransactionCommandKind, TransactionEventType>;

const notFound = { refuse: 'not_found' } as const;
const conflict = { refuse: 'conflict' } as const;
const psc = { refuse: 'provider_status_conflict' } as const;
const simNA = { refuse: 'simulation_not_allowed' } as const;
const noop = { noop: true } as const;
const repeat = { repeat: 'same_facts_or_conflict' } as const;

/** The refund operations of a charge that is not paid (issue 22 item 4): none applies. */
const NO_REFUND_OPERATION = {
  record_payout_sent: conflict,
  record_payout_returned: conflict,
  hand_refund_to_operator: conflict,
  complete_refund: conflict,
  cancel_refund: conflict,
  view_refund_bank_account: conflict,
} as const;

/** A row where every refresh result regresses or reopens a final state, except the one naming it. */
function finalRow(same: 'refresh_expired' | 'refresh_refunded' | null) {
  return {
    reserve: repeat,
    record_issued: conflict,
    record_refused: conflict,
    record_uncertain: conflict,
    mark_unknown: noop,
    simulate_paid: simNA,
    simulate_expired: simNA,
    refresh_pending: psc,
    refresh_processing: psc,
    refresh_paid: psc,
    refresh_expired: same === 'refresh_expired' ? noop : psc,
    refresh_refunded: same === 'refresh_refunded' ? noop : psc,
    refund: same === 'refresh_refunded' ? noop : conflict,
    change_due_date: conflict,
    refresh_boleto_pix: noop,
    refresh_reference_found: conflict,
    refresh_duplicate_payment: noop,
    claim_duplicate_refund: same === 'refresh_refunded' ? noop : conflict,
    record_duplicate_refund: same === 'refresh_refunded' ? noop : conflict,
    record_duplicate_refund_refused: same === 'refresh_refunded' ? noop : conflict,
    refund_unconfirmed: same === 'refresh_refunded' ? noop : conflict,
    refund_refused: same === 'refresh_refunded' ? noop : conflict,
    due_date_unconfirmed: conflict,
    due_date_refused: conflict,
    request_refund: same === 'refresh_refunded' ? noop : conflict,
    request_due_date_change: conflict,
    record_payout_sent: same === 'refresh_refunded' ? noop : conflict,
    record_payout_returned: same === 'refresh_refunded' ? noop : conflict,
    hand_refund_to_operator: same === 'refresh_refunded' ? noop : conflict,
    complete_refund: conflict,
    cancel_refund: conflict,
    view_refund_bank_account: conflict,
  } as const;
}

export const transactionTransitions: Table = {
  none: {
    reserve: { emits: 'Transaction.Reserved', to: 'processing' },
    record_issued: notFound,
    record_refused: notFound,
    record_uncertain: notFound,
    mark_unknown: notFound,
    simulate_paid: notFound,
    simulate_expired: notFound,
    refresh_pending: notFound,
    refresh_processing: notFound,
    refresh_paid: notFound,
    refresh_expired: notFound,
    refresh_refunded: notFound,
    refund: notFound,
    change_due_date: notFound,
    refresh_boleto_pix: notFound,
    refresh_reference_found: notFound,
    refresh_duplicate_payment: notFound,
    claim_duplicate_refund: notFound,
    record_duplicate_refund: notFound,
    record_duplicate_refund_refused: notFound,
    refund_unconfirmed: notFound,
    refund_refused: notFound,
    due_date_unconfirmed: notFound,
    due_date_refused: notFound,
    request_refund: notFound,
    request_due_date_change: notFound,
    record_payout_sent: notFound,
    record_payout_returned: notFound,
    hand_refund_to_operator: notFound,
    complete_refund: notFound,
    cancel_refund: notFound,
    view_refund_bank_account: notFound,
  },
  processing: {
    reserve: repeat,
    record_issued: { emits: 'Transaction.Issued', to: 'pending' },
    record_refused: { emits: 'Transaction.Refused', to: 'failed' },
    record_uncertain: { emits: 'Transaction.Unconfirmed', to: 'unknown' },
    mark_unknown: { emits: 'Transaction.Unconfirmed', to: 'unknown' },
    simulate_paid: simNA,
    simulate_expired: simNA,
    refresh_pending: { emits: 'Transaction.AwaitingPayment', to: 'pending' },
    refresh_processing: noop,
    refresh_paid: { emits: 'Transaction.Paid', to: 'paid' },
    refresh_expired: { emits: 'Transaction.Expired', to: 'expired' },
    refresh_refunded: psc,
    refund: conflict,
    change_due_date: conflict,
    refresh_boleto_pix: noop,
    refresh_reference_found: conflict,
    refresh_duplicate_payment: noop,
    claim_duplicate_refund: conflict,
    record_duplicate_refund: conflict,
    record_duplicate_refund_refused: conflict,
    refund_unconfirmed: conflict,
    refund_refused: conflict,
    due_date_unconfirmed: conflict,
    due_date_refused: conflict,
    request_refund: conflict,
    request_due_date_change: conflict,
    ...NO_REFUND_OPERATION,
  },
  pending: {
    reserve: repeat,
    record_issued: conflict,
    record_refused: conflict,
    record_uncertain: conflict,
    mark_unknown: noop,
    simulate_paid: { emits: 'Transaction.Paid', to: 'paid' },
    simulate_expired: { emits: 'Transaction.Expired', to: 'expired' },
    refresh_pending: noop,
    refresh_processing: { emits: 'Transaction.PaymentProcessing', to: 'processing' },
    refresh_paid: { emits: 'Transaction.Paid', to: 'paid' },
    refresh_expired: { emits: 'Transaction.Expired', to: 'expired' },
    refresh_refunded: psc,
    refund: conflict,
    change_due_date: { emits: 'Transaction.DueDateChanged', to: 'pending' },
    refresh_boleto_pix: { emits: 'Transaction.BoletoPixIssued', to: 'pending' },
    refresh_reference_found: conflict,
    refresh_duplicate_payment: noop,
    claim_duplicate_refund: conflict,
    record_duplicate_refund: conflict,
    record_duplicate_refund_refused: conflict,
    refund_unconfirmed: conflict,
    refund_refused: conflict,
    due_date_unconfirmed: { emits: 'Transaction.DueDateChangeUnconfirmed', to: 'pending' },
    due_date_refused: { emits: 'Transaction.DueDateChangeRefused', to: 'pending' },
    request_refund: conflict,
    request_due_date_change: { emits: 'Transaction.DueDateChangeRequested', to: 'pending' },
    ...NO_REFUND_OPERATION,
  },
  paid: {
    reserve: repeat,
    record_issued: conflict,
    record_refused: conflict,
    record_uncertain: conflict,
    mark_unknown: noop,
    simulate_paid: simNA,
    simulate_expired: simNA,
    refresh_pending: psc,
    refresh_processing: psc,
    refresh_paid: noop,
    refresh_expired: psc,
    refresh_refunded: { emits: 'Transaction.Refunded', to: 'refunded' },
    refund: { emits: 'Transaction.Refunded', to: 'refunded' },
    change_due_date: conflict,
    refresh_boleto_pix: noop,
    refresh_reference_found: conflict,
    refresh_duplicate_payment: { emits: 'Transaction.DuplicatePaymentFound', to: 'paid' },
    claim_duplicate_refund: { emits: 'Transaction.DuplicateRefundAttempted', to: 'paid' },
    record_duplicate_refund: { emits: 'Transaction.DuplicateRefunded', to: 'paid' },
    record_duplicate_refund_refused: { emits: 'Transaction.DuplicateRefundRefused', to: 'paid' },
    refund_unconfirmed: { emits: 'Transaction.RefundUnconfirmed', to: 'paid' },
    refund_refused: { emits: 'Transaction.RefundRefused', to: 'paid' },
    due_date_unconfirmed: conflict,
    due_date_refused: conflict,
    request_refund: { emits: 'Transaction.RefundRequested', to: 'paid' },
    request_due_date_change: conflict,
    record_payout_sent: { emits: 'Transaction.RefundPayoutSent', to: 'paid' },
    record_payout_returned: { emits: 'Transaction.RefundPayoutReturned', to: 'paid' },
    hand_refund_to_operator: { emits: 'Transaction.RefundHandedToOperator', to: 'paid' },
    complete_refund: { emits: 'Transaction.Refunded', to: 'refunded' },
    cancel_refund: { emits: 'Transaction.RefundCancelled', to: 'paid' },
    view_refund_bank_account: { emits: 'Transaction.RefundBankAccountViewed', to: 'paid' },
  },
  expired: finalRow('refresh_expired'),
  failed: finalRow(null),
  unknown: {
    reserve: repeat,
    record_issued: { emits: 'Transaction.Issued', to: 'pending' },
    record_refused: { emits: 'Transaction.Refused', to: 'failed' },
    record_uncertain: noop,
    mark_unknown: noop,
    simulate_paid: simNA,
    simulate_expired: simNA,
    refresh_pending: { emits: 'Transaction.Issued', to: 'pending' },
    refresh_processing: { emits: 'Transaction.PaymentProcessing', to: 'processing' },
    refresh_paid: { emits: 'Transaction.Paid', to: 'paid' },
    refresh_expired: { emits: 'Transaction.Expired', to: 'expired' },
    refresh_refunded: psc,
    refund: conflict,
    change_due_date: conflict,
    refresh_boleto_pix: noop,
    refresh_reference_found: { emits: 'Transaction.ProviderReferenceFound', to: 'unknown' },
    refresh_duplicate_payment: noop,
    claim_duplicate_refund: conflict,
    record_duplicate_refund: conflict,
    record_duplicate_refund_refused: conflict,
    refund_unconfirmed: conflict,
    refund_refused: conflict,
    due_date_unconfirmed: conflict,
    due_date_refused: conflict,
    request_refund: conflict,
    request_due_date_change: conflict,
    ...NO_REFUND_OPERATION,
  },
  refunded: finalRow('refresh_refunded'),
};

/** Which command kinds are refresh results (subject to the staleness rule). */
export function isRefresh(command: TransactionCommand): command is RefreshCommand {
  return command.kind.startsWith('refresh_');
}

// ------------------------------------------------------------------------------------------ helpers

/** Re-exported for the read models that count business days (DESIGN.md "Conventions"). */
export { saoPauloDate };

function invalid(param: string, message: string): DomainError {
  return new DomainError('validation_error', message, { param });
}

function refuse(code: ErrorCode, message: string, details: Record<string, unknown> = {}): DomainError {
  return new DomainError(code, message, details);
}

const NO_ARTIFACTS: TransactionArtifacts = {
  provider_reference: null,
  pix_copy_paste: null,
  pix_qr_code: null,
  expires_at: null,
  boleto_url: null,
  boleto_digitable_line: null,
  boleto_barcode: null,
  boleto_pix_copy_paste: null,
  boleto_pix_expires_at: null,
};
const NO_DIAGNOSTICS: Diagnostics = {
  provider_error_code: null,
  provider_error_message: null,
  provider_http_status: null,
};

function reservedFacts(c: ReserveTransaction, now: Date): TransactionReservedData {
  return {
    transaction_id: c.transactionId,
    tenant_id: c.tenantId,
    livemode: c.livemode,
    method: c.method,
    amount: c.amount,
    currency: 'BRL',
    reference: c.reference,
    description: c.description,
    cost_center_id: c.costCenterId,
    callback_url: c.callbackUrl,
    provider_id: c.providerId,
    subaccount_id: c.subaccountId,
    environment: c.environment,
    simulated: c.simulated,
    idempotency_key_sha256: c.idempotencyKeySha256,
    expires_in: c.expiresIn,
    boleto: c.boleto,
    reserved_at: now.toISOString(),
    request: c.request,
    provider_request: c.providerRequest === null ? null : { ...c.providerRequest },
  };
}

/** Whether a repeated reserve carries the stored facts (the reservation time aside). */
export function sameReservation(state: TransactionState, command: TransactionCommand): boolean {
  if (state.status === 'none' || command.kind !== 'reserve') return false;
  const { reserved_at: _a, ...stored } = state.reserved;
  const { reserved_at: _b, ...asked } = reservedFacts(command, new Date(0));
  return JSON.stringify(sorted(stored)) === JSON.stringify(sorted(asked));
}

/** A JSON value with object keys sorted and undefined members dropped, as a stored payload reads back. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => [k, sorted(v)]),
  );
}

/** The creation checks (c), in the order a caller would fix them. */
function reserve(c: ReserveTransaction, now: Date): readonly TransactionEvent[] | DomainError {
  if (!Number.isSafeInteger(c.amount) || c.amount < 1 || c.amount > MAX_AMOUNT) {
    return invalid('amount', 'The amount must be an integer of 1 to 100000000 centavos.');
  }
  if (!/^[0-9a-f]{64}$/.test(c.idempotencyKeySha256)) {
    return invalid('idempotency_key', 'The idempotency key digest must be a sha256 hex digest.');
  }
  const policy = policyOf(c.method);
  const fields = policy.checkFields({ expiresIn: c.expiresIn, boleto: c.boleto });
  if (fields !== null) return invalid(fields.param, fields.message);
  // Test-mode charges never reach a provider (SPEC 1, 5.2).
  if (!c.livemode && !c.simulated) return invalid('simulated', 'A test-mode charge is always simulated.');
  if (c.providerId === null && c.livemode) return invalid('provider_id', 'A live charge needs a provider.');
  if (c.simulated && c.providerRequest !== null) {
    return invalid('provider_request', 'A simulated charge has no provider body (SPEC 2.3).');
  }
  if (!policy.sandbox && !c.simulated && c.environment === 'sandbox') {
    return refuse('provider_pix_sandbox_unsupported', 'The external provider has no Pix sandbox.');
  }
  const r = c.request;
  if (r.tenant_id !== c.tenantId || r.method !== c.method || r.amount !== c.amount) {
    return invalid('request', 'The snapshot must carry the tenant, method and amount of the charge.');
  }
  const facts = reservedFacts(c, now);
  const parsed = reservedData.safeParse(facts);
  if (!parsed.success) {
    const param = parsed.error.issues[0]?.path.join('.') ?? 'request';
    return invalid(param, 'The reservation is not a valid charge.');
  }
  // The parsed copy, marked: the registry's encode of this event does not parse it a second time.
  return [{ type: 'Transaction.Reserved', data: parsedWith(reservedData, parsed.data) }];
}

/** (r): the external id a refresh result is about. */
function externalId(state: TransactionFacts, carried: string | null): string | DomainError {
  const known = state.artifacts.provider_reference;
  if (known !== null && carried !== null && carried !== known) {
    return refuse('provider_refresh_failed', 'The provider answered about another charge.', {
      transaction_id: state.reserved.transaction_id,
    });
  }
  if (known === null) {
    return refuse('reconciliation_required', 'There is no external id to query; reconcile first.', {
      transaction_id: state.reserved.transaction_id,
    });
  }
  return known;
}

function carriedReference(command: TransactionCommand): string | null {
  switch (command.kind) {
    case 'refresh_pending':
      return command.artifacts.provider_reference;
    case 'refresh_processing':
    case 'refresh_paid':
    case 'refresh_expired':
    case 'refresh_refunded':
    case 'refresh_boleto_pix':
    case 'refresh_duplicate_payment':
      return command.providerReference;
    default:
      // refresh_reference_found names the id to adopt, checked in its own cell (f).
      return null;
  }
}

/** Cells needing an external id (r): processing and unknown rows, refresh columns. */
function needsExternalId(status: TransactionStatus, command: TransactionCommand): boolean {
  return (
    (status === 'processing' || status === 'unknown') &&
    isRefresh(command) &&
    command.kind !== 'refresh_reference_found'
  );
}

type Emit = readonly TransactionEvent[] | DomainError;

/** The event of an `emits` cell, with the cell's own checks. */
function emit(
  type: TransactionEventType,
  s: TransactionFacts,
  c: TransactionCommand,
  ctx: DecideContext,
): Emit {
  const id = s.reserved.transaction_id;
  const now = ctx.now;
  const policy = policyOf(s.reserved.method);
  if (needsExternalId(s.status, c)) {
    const ref = externalId(s, carriedReference(c));
    if (ref instanceof DomainError) return ref;
  } else if (isRefresh(c)) {
    // A pending charge has its external id, unless it is simulated (the simulator answers locally).
    const carried = carriedReference(c);
    const known = s.artifacts.provider_reference;
    if (known !== null && carried !== null && carried !== known) {
      return refuse('provider_refresh_failed', 'The provider answered about another charge.', {
        transaction_id: id,
      });
    }
  }
  switch (type) {
    case 'Transaction.Issued': {
      if (c.kind !== 'record_issued' && c.kind !== 'refresh_pending') break;
      return [
        {
          type,
          data: {
            transaction_id: id,
            source: c.kind === 'record_issued' ? 'creation' : 'refresh',
            ...c.artifacts,
            provider_reference: c.artifacts.provider_reference ?? s.artifacts.provider_reference,
          },
        },
      ];
    }
    case 'Transaction.Refused': {
      if (c.kind !== 'record_refused') break;
      return [
        {
          type,
          data: {
            transaction_id: id,
            failure_code: c.failureCode,
            provider_reference: c.providerReference,
            ...c.diagnostics,
          },
        },
      ];
    }
    case 'Transaction.Unconfirmed': {
      if (c.kind === 'record_uncertain') {
        return [
          {
            type,
            data: {
              transaction_id: id,
              reason: 'uncertain_answer',
              provider_reference: c.providerReference,
              ...c.diagnostics,
            },
          },
        ];
      }
      if (c.kind !== 'mark_unknown') break;
      // A charge the provider already answered (a boleto payment intent back in processing) is not stuck.
      if (s.answered) return [];
      const age = now.getTime() - Date.parse(s.reserved.reserved_at);
      if (age < c.timeoutSeconds * 1000) return [];
      return [
        {
          type,
          data: {
            transaction_id: id,
            reason: 'processing_timeout',
            provider_reference: s.artifacts.provider_reference,
            ...NO_DIAGNOSTICS,
          },
        },
      ];
    }
    case 'Transaction.PaymentProcessing':
      if (!policy.paymentIntent) {
        return refuse('provider_refresh_failed', 'Status 2 is not a known Pix status.', {
          transaction_id: id,
        });
      }
      return [{ type, data: { transaction_id: id } }];
    case 'Transaction.AwaitingPayment':
      return [{ type, data: { transaction_id: id } }];
    case 'Transaction.Paid': {
      if (c.kind === 'simulate_paid') {
        if (!s.reserved.simulated) return simulationNotAllowed(id);
        return [
          {
            type,
            data: {
              transaction_id: id,
              paid_with: s.reserved.method,
              paid_at: now.toISOString(),
              duplicate_payment_at: null,
              source: 'simulation',
            },
          },
        ];
      }
      if (c.kind !== 'refresh_paid') break;
      if (!policy.acceptsPayment(c.paidWith, c.duplicatePayment)) {
        return refuse('provider_refresh_failed', 'A Pix charge can only be paid by Pix.', {
          transaction_id: id,
        });
      }
      return [
        {
          type,
          data: {
            transaction_id: id,
            paid_with: c.paidWith,
            paid_at: now.toISOString(),
            duplicate_payment_at: c.duplicatePayment ? now.toISOString() : null,
            source: 'provider',
          },
        },
      ];
    }
    case 'Transaction.Expired': {
      if (c.kind === 'simulate_expired') {
        if (!s.reserved.simulated) return simulationNotAllowed(id);
        return [{ type, data: { transaction_id: id, source: 'simulation' } }];
      }
      if (c.kind !== 'refresh_expired') break;
      if (c.source === 'deadline') {
        const deadline = s.artifacts.expires_at;
        const applies = policy.deadlineExpires || s.reserved.simulated;
        if (!applies || deadline === null || now.getTime() < Date.parse(deadline)) return [];
      }
      return [{ type, data: { transaction_id: id, source: c.source } }];
    }
    case 'Transaction.Refunded': {
      if (c.kind === 'complete_refund') {
        const refused = awaitingOperator(s) ?? evidenceError(c.evidence, s, now);
        if (refused) return refused;
        const data = { transaction_id: id, refund_status: 'succeeded', source: 'operator' } as const;
        return [{ type, data: { ...data, evidence: c.evidence } }];
      }
      if (c.kind !== 'refund' && c.kind !== 'refresh_refunded') break;
      const source = c.kind === 'refund' ? (c.source ?? 'refund') : 'provider';
      const evidence = c.kind === 'refund' && c.evidence ? { evidence: c.evidence } : {};
      return [{ type, data: { transaction_id: id, refund_status: 'succeeded', source, ...evidence } }];
    }
    case 'Transaction.RefundPayoutSent':
    case 'Transaction.RefundHandedToOperator': {
      if (c.kind !== 'record_payout_sent' && c.kind !== 'hand_refund_to_operator') break;
      const open = s.refundStatus === 'pending' && s.refundRoute === 'payout' && s.refundTransferId === null;
      if (!open) return [];
      return c.kind === 'record_payout_sent'
        ? [{ type: 'Transaction.RefundPayoutSent', data: { transaction_id: id, transfer_id: c.transferId } }]
        : [{ type: 'Transaction.RefundHandedToOperator', data: { transaction_id: id, ...c.diagnostics } }];
    }
    case 'Transaction.RefundPayoutReturned': {
      if (c.kind !== 'record_payout_returned') break;
      const sent = s.refundStatus === 'pending' && s.refundRoute === 'payout' && s.refundTransferId !== null;
      return sent ? [{ type, data: { transaction_id: id, ...c.diagnostics } }] : [];
    }
    case 'Transaction.RefundCancelled': {
      if (c.kind !== 'cancel_refund') break;
      const refused = awaitingOperator(s);
      if (refused) return refused;
      const reason = c.reason.trim();
      if (reason.length < 3 || reason.length > 500) {
        return invalid('reason', 'Say why the refund is cancelled, in 3 to 500 characters.');
      }
      return [{ type, data: { transaction_id: id, reason } }];
    }
    case 'Transaction.RefundBankAccountViewed': {
      if (c.kind !== 'view_refund_bank_account') break;
      if (s.refundVault === null) {
        return refuse('conflict', 'No refund of this charge holds a bank account.', { transaction_id: id });
      }
      return [{ type, data: { transaction_id: id, vault_id: s.refundVault.vault_id } }];
    }
    case 'Transaction.RefundRequested': {
      if (c.kind !== 'request_refund') break;
      if (s.refundStatus === 'pending') {
        return refuse('refund_in_progress', 'A refund of this charge is already in progress.', {
          transaction_id: id,
        });
      }
      const route = c.route === undefined || c.route === 'provider' ? {} : { route: c.route };
      const account = c.bankAccount ? { bank_account: c.bankAccount } : {};
      return [{ type, data: { transaction_id: id, requested_at: now.toISOString(), ...route, ...account } }];
    }
    case 'Transaction.RefundUnconfirmed': {
      if (c.kind !== 'refund_unconfirmed') break;
      const pending = s.refundStatus === 'pending';
      if (!recordsUncertainty(s.refundInFlight, s.refundRequestedAt, pending, c.staleAfterSeconds, now)) {
        return [];
      }
      return [{ type, data: { transaction_id: id, ...c.diagnostics } }];
    }
    case 'Transaction.RefundRefused': {
      if (c.kind !== 'refund_refused') break;
      return [{ type, data: { transaction_id: id, ...c.diagnostics } }];
    }
    case 'Transaction.DueDateChangeUnconfirmed':
    case 'Transaction.DueDateChangeRefused': {
      if (c.kind !== 'due_date_unconfirmed' && c.kind !== 'due_date_refused') break;
      if (!policy.dueDate || s.boletoDueDate === null) {
        return refuse('conflict', 'Only an open boleto has a due date to change.', { transaction_id: id });
      }
      if (!isRealDate(c.dueDate))
        return invalid('due_date', 'The due date must be a real date (YYYY-MM-DD).');
      if (c.kind === 'due_date_unconfirmed') {
        const pending = s.pendingDueDate === c.dueDate;
        const { dueDateInFlight: inFlight, dueDateRequestedAt: at } = s;
        if (!recordsUncertainty(inFlight, at, pending, c.staleAfterSeconds, now)) return [];
      }
      return [{ type, data: { transaction_id: id, boleto_due_date: c.dueDate, ...c.diagnostics } }];
    }
    case 'Transaction.DueDateChangeRequested': {
      if (c.kind !== 'request_due_date_change') break;
      const current = s.boletoDueDate;
      if (!policy.dueDate || current === null) {
        return refuse('conflict', 'Only an open boleto has a due date to change.', { transaction_id: id });
      }
      const outside = dueDateOutsideWindow(c.dueDate, now);
      if (outside) return outside;
      if (s.pendingDueDate !== null) {
        return refuse(
          'change_in_progress',
          `A change of the due date to ${s.pendingDueDate} is already in progress.`,
          { transaction_id: id },
        );
      }
      if (c.dueDate === current) return [];
      return [
        { type, data: { transaction_id: id, boleto_due_date: c.dueDate, requested_at: now.toISOString() } },
      ];
    }
    case 'Transaction.DueDateChanged': {
      if (c.kind !== 'change_due_date') break;
      const current = s.boletoDueDate;
      if (!policy.dueDate || current === null) {
        return refuse('conflict', 'Only an open boleto has a due date to change.', { transaction_id: id });
      }
      const outside = dueDateOutsideWindow(c.dueDate, now);
      if (outside) return outside;
      // The same date: nothing changes, and a change pending for it is settled by the date itself.
      if (c.dueDate === current && s.pendingDueDate === null) return [];
      const data = {
        transaction_id: id,
        boleto_due_date: c.dueDate,
        previous_due_date: current,
        expires_at: c.expiresAt,
        ...(c.artifacts ?? {}),
      };
      return [{ type, data }];
    }
    case 'Transaction.BoletoPixIssued': {
      if (c.kind !== 'refresh_boleto_pix') break;
      const applies = policy.boletoPix && !s.reserved.simulated;
      if (!applies || s.artifacts.boleto_pix_copy_paste !== null) return [];
      return [
        {
          type,
          data: {
            transaction_id: id,
            boleto_pix_copy_paste: c.boletoPixCopyPaste,
            boleto_pix_expires_at: c.boletoPixExpiresAt,
          },
        },
      ];
    }
    case 'Transaction.ProviderReferenceFound': {
      if (c.kind !== 'refresh_reference_found') break;
      const known = s.artifacts.provider_reference;
      if (known === c.providerReference) return [];
      if (known !== null) {
        return refuse('provider_refresh_failed', 'The provider answered about another charge.', {
          transaction_id: id,
        });
      }
      return [
        {
          type,
          data: { transaction_id: id, provider_reference: c.providerReference, source: 'query_by_reference' },
        },
      ];
    }
    case 'Transaction.DuplicatePaymentFound': {
      if (c.kind !== 'refresh_duplicate_payment') break;
      const applies = policy.boletoPix && !s.reserved.simulated;
      if (!applies || s.duplicatePaymentAt !== null) return [];
      return [
        { type, data: { transaction_id: id, paid_with: 'boleto', duplicate_payment_at: now.toISOString() } },
      ];
    }
    case 'Transaction.DuplicateRefundAttempted': {
      if (c.kind !== 'claim_duplicate_refund') break;
      const d = s.duplicateRefund;
      const open = d !== null && (d.status === 'due' || d.status === 'attempted');
      if (!open || d.attempts !== c.observedAttempts) return [];
      const last = d.attemptedAt === null ? null : Date.parse(d.attemptedAt);
      if (last !== null && now.getTime() - last < c.retryAfterMs) return [];
      return [
        { type, data: { transaction_id: id, attempt: d.attempts + 1, attempted_at: now.toISOString() } },
      ];
    }
    case 'Transaction.DuplicateRefunded': {
      if (c.kind !== 'record_duplicate_refund') break;
      const d = s.duplicateRefund;
      if (d === null || d.status === 'succeeded' || d.status === 'refused' || c.attempt !== d.attempts) {
        return [];
      }
      if (c.source === 'refund' && d.status !== 'attempted') return [];
      return [{ type, data: { transaction_id: id, attempt: d.attempts, source: c.source } }];
    }
    case 'Transaction.DuplicateRefundRefused': {
      if (c.kind !== 'record_duplicate_refund_refused') break;
      const d = s.duplicateRefund;
      if (d === null || d.status !== 'attempted' || c.attempt !== d.attempts) return [];
      return [{ type, data: { transaction_id: id, attempt: d.attempts, ...c.diagnostics } }];
    }
    case 'Transaction.Reserved':
      break;
  }
  throw new Error(`transaction state table: ${c.kind} cannot emit ${type} from ${s.status}`);
}

/** (k): a refund awaiting an operator: route `operator`, pending or failed after a returned transfer. */
function awaitingOperator(s: TransactionFacts): DomainError | null {
  const waiting =
    s.refundRoute === 'operator' && (s.refundStatus === 'pending' || s.refundStatus === 'failed');
  if (waiting) return null;
  return refuse('conflict', 'No refund of this charge awaits an operator.', {
    transaction_id: s.reserved.transaction_id,
  });
}

/** (k): the evidence of an integral refund: the charge's amount, a real date not in the future (Sao Paulo). */
function evidenceError(evidence: RefundEvidence, s: TransactionFacts, now: Date): DomainError | null {
  if (evidence.amount !== s.reserved.amount) {
    return invalid('evidence.amount', `The refund is integral: ${s.reserved.amount} centavos.`);
  }
  const day = evidence.paid_on;
  if (day !== null && (!isRealDate(day) || day > saoPauloDate(now))) {
    return invalid('evidence.paid_on', 'The date the money was returned: a real date, not in the future.');
  }
  return null;
}

/** SPEC 4.8 (d): a new due date lies between today and today + 365 days in America/Sao_Paulo. */
function dueDateOutsideWindow(dueDate: string, now: Date): DomainError | null {
  const today = saoPauloDate(now);
  if (isRealDate(dueDate) && dueDate >= today && dueDate <= addDays(today, 365)) return null;
  return invalid('due_date', 'The due date must be between today and today + 365 days (Sao Paulo).');
}

/**
 * (w): an uncertain answer is recorded for the open reservation (for the reconciler, `staleAfterSeconds`,
 * only one that outlived any call), or, with none open, when the change is not pending already.
 */
function recordsUncertainty(
  inFlight: boolean,
  requestedAt: string | null,
  alreadyPending: boolean,
  staleAfterSeconds: number | undefined,
  now: Date,
): boolean {
  if (staleAfterSeconds !== undefined) {
    const age = requestedAt === null ? 0 : now.getTime() - Date.parse(requestedAt);
    return inFlight && age >= staleAfterSeconds * 1000;
  }
  return inFlight || !alreadyPending;
}

function simulationNotAllowed(id: string): DomainError {
  return refuse('simulation_not_allowed', 'Only a pending simulated transaction can be simulated.', {
    transaction_id: id,
  });
}

const REFUSAL_MESSAGES: Partial<Record<ErrorCode, string>> = {
  not_found: 'The transaction does not exist.',
  provider_status_conflict: 'The provider update would regress a final state; local state kept.',
  simulation_not_allowed: 'Only a pending simulated transaction can be simulated.',
  conflict: 'The transaction is not in a state that allows this operation.',
};

// ------------------------------------------------------------------------------------------ decider

/** The facts after an event that follows the reservation; the status comes from `statusAfter`. */
function afterReservation(state: TransactionFacts, event: TransactionEvent): TransactionFacts {
  switch (event.type) {
    case 'Transaction.Issued': {
      const { transaction_id: _, source: _s, ...artifacts } = event.data;
      return { ...state, artifacts };
    }
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

export const transaction: Decider<TransactionCommand, TransactionEvent, TransactionState> = {
  initialState: { status: 'none' },

  evolve(state, event) {
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
      };
    }
    if (state.status === 'none') return state;
    return {
      ...afterReservation(state, event),
      status: statusAfter(event.type) ?? state.status,
      answered: true,
    };
  },

  decide(command, state, ctx) {
    const move = transactionTransitions[state.status][command.kind];
    // Staleness rule: a refresh result read against an older status never overwrites a newer one.
    if (state.status !== 'none' && isRefresh(command) && command.observedStatus !== state.status) return [];
    if ('refuse' in move) {
      const details = state.status === 'none' ? {} : { transaction_id: state.reserved.transaction_id };
      return new DomainError(move.refuse, REFUSAL_MESSAGES[move.refuse] ?? 'Refused.', details);
    }
    if ('noop' in move) return [];
    if ('repeat' in move) {
      return sameReservation(state, command)
        ? []
        : new DomainError('idempotency_conflict', 'This transaction was reserved with other values.');
    }
    if (command.kind === 'reserve') return reserve(command, ctx.now);
    if (state.status === 'none') throw new Error(`transaction state table: ${command.kind} from none`);
    return emit(move.emits, state, command, ctx);
  },
};
