import { z } from 'zod';
import { defineEvent, type EventOf } from '../../events/event-registry.ts';
import { feeFactsData } from '../fees.ts';
import { CHARGE_METHODS, MAX_AMOUNT, REFUND_ROUTES } from './vocabulary.ts';

/**
 * A charge (SPEC 2.2, 2.3, 3.1; stream `transaction-<txn_id>`, ids from `newId('txn')` in the command).
 * Reserve -> call -> record outcome (DESIGN.md): the reservation is committed before any provider call, and
 * `unknown` is a real state, resolved only by a refresh that finds the charge at the provider.
 *
 * Event contract (all payloads carry `transaction_id`; timestamps are ISO 8601 UTC taken from ctx.now):
 *   Transaction.Reserved v1            -> processing. The facts of the charge: tenant_id, livemode, method,
 *       amount, currency, reference, description, cost_center_id, callback_url, provider_id, subaccount_id,
 *       environment, simulated, idempotency_key_sha256 (never the key), expires_in (pix) | boleto options,
 *       (optional) credit_card, (optional, a Pix Automatic debit) pix_automatic_authorization_id and
 *       scheduled_due_date, reserved_at; plus the SPEC 2.3 snapshot `request` (normalized, with customer: personal data) and
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

/** The payer's address fields (SPEC 4.1), also what a boleto prints (src/boleto-pdf/from-transaction.ts). */
export const addressFields = {
  zip_code: z.string(),
  street: z.string(),
  number: z.string(),
  complement: z.string().optional(),
  district: z.string(),
  city: z.string(),
  state: z.string(),
};
const address = z.strictObject(addressFields);
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

/**
 * A card as a charge keeps it (SPEC 4.9; issue 25 item 2): brand, last four digits, holder and expiry, never
 * the number, the security code or the provider's token. `card_id`: Calebe's id of the stored card the charge
 * used (`card_…`), or null when the charge tokenized card data (the id comes with its capture).
 */
export const maskedCard = z.strictObject({
  card_id: z.string().startsWith('card_').nullable(),
  brand: z.string().min(1).max(40),
  last_four: z.string().regex(/^[0-9]{4}$/),
  holder: z.string(),
  /** `MM/YYYY`. */
  expiration: z.string().regex(/^(0[1-9]|1[0-2])\/[0-9]{4}$/),
});
export type MaskedCard = z.infer<typeof maskedCard>;

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
  /** Card (SPEC 4.9): installments (default 1) and the masked card. */
  installments: z.number().int().optional(),
  credit_card: maskedCard.optional(),
  /** Pix Automatic debit (SPEC 4.11): the authorization and the due date of the authorized calendar. */
  authorization_id: z.string().optional(),
  due_date: isoDate.optional(),
});
export type TransactionRequestSnapshot = z.infer<typeof requestSnapshot>;

export const reservedData = z.strictObject({
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
  /** Card: the masked card and installments (1 to 12); absent for the other methods. */
  credit_card: z.strictObject({ card: maskedCard, installments: z.number().int().min(1).max(12) }).optional(),
  /**
   * Pix Automatic debit (SPEC 2.2, 4.11; issue 27): the authorization it debits and the due date it is
   * scheduled for; absent for every other charge (and in events written before debits), so v1 still reads
   * every stored reservation: optional facts need no new version.
   */
  pix_automatic_authorization_id: z.string().startsWith('pxa_').optional(),
  scheduled_due_date: isoDate.optional(),
  /**
   * Issue 28 item 4 (SPEC 2.2): the fees retained, resolved before reservation and fixed forever; absent in
   * events written before fees (those read as `retained_amount` 0 and `split` null), so v1 still reads them.
   */
  fees: feeFactsData.optional(),
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
/** Before the provider answered: nothing issued yet. */
export const NO_ARTIFACTS: TransactionArtifacts = {
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
/** A card authorized and captured at creation (SPEC 4.9 "immediate capture"): paid, with its stored card. */
const capturedData = z.strictObject({
  transaction_id: txnId,
  provider_reference: z.string().min(1),
  paid_at: instant,
  /** The card saved by this charge (`card_…`), or the stored card it used; null when none was kept. */
  card_id: z.string().startsWith('card_').nullable(),
});
const expiredData = z.strictObject({
  transaction_id: txnId,
  source: z.enum(['provider', 'deadline', 'simulation']),
});
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
  defineEvent({
    type: 'Transaction.Reserved',
    audit: {
      action: 'transaction.reserved',
      when: 'a charge was reserved (SPEC 3.1; the creation snapshot stays in its own resource)',
    },
    schema: reservedData,
  }),
  defineEvent({
    type: 'Transaction.Issued',
    audit: { action: 'transaction.issued', when: 'the provider answered the creation' },
    schema: issuedData,
  }),
  defineEvent({
    type: 'Transaction.Captured',
    audit: {
      action: 'transaction.captured',
      when: 'a card charge was authorized and captured at creation (`paid`)',
    },
    schema: capturedData,
  }),
  defineEvent({
    type: 'Transaction.Refused',
    audit: { action: 'transaction.refused', when: 'confirmed refusal (`failed`)' },
    schema: refusedData,
  }),
  defineEvent({
    type: 'Transaction.Unconfirmed',
    audit: { action: 'transaction.unconfirmed', when: 'outcome unconfirmed (`unknown`)' },
    schema: unconfirmedData,
  }),
  defineEvent({
    type: 'Transaction.PaymentProcessing',
    audit: {
      action: 'transaction.payment_processing',
      when: 'payment intent without settlement (`processing`)',
    },
    schema: idOnly,
  }),
  defineEvent({
    type: 'Transaction.AwaitingPayment',
    audit: { action: 'transaction.awaiting_payment', when: 'the charge is `pending`' },
    schema: idOnly,
  }),
  defineEvent({
    type: 'Transaction.Paid',
    audit: { action: 'transaction.paid', when: 'payment confirmed (`paid`)' },
    schema: paidData,
  }),
  defineEvent({
    type: 'Transaction.Expired',
    audit: { action: 'transaction.expired', when: 'deadline passed (`expired`)' },
    schema: expiredData,
  }),
  defineEvent({
    type: 'Transaction.Refunded',
    audit: { action: 'transaction.refunded', when: 'payment returned (`refunded`)' },
    schema: refundedData,
  }),
  defineEvent({
    type: 'Transaction.DueDateChanged',
    audit: { action: 'transaction.due_date_changed', when: 'a boleto due date changed (SPEC 4.8)' },
    schema: dueDateChangedData,
  }),
  defineEvent({
    type: 'Transaction.BoletoPixIssued',
    audit: {
      action: 'transaction.boleto_pix_issued',
      when: "the boleto's slow Pix arrived in a later read (SPEC 4.2)",
    },
    schema: boletoPixIssuedData,
  }),
  defineEvent({
    type: 'Transaction.ProviderReferenceFound',
    audit: {
      action: 'transaction.provider_reference_found',
      when: 'the external id of an `unknown` charge was found by reference',
    },
    schema: referenceFoundData,
  }),
  defineEvent({
    type: 'Transaction.DuplicatePaymentFound',
    audit: {
      action: 'transaction.duplicate_payment_found',
      when: 'a boleto already paid was read as paid by both the boleto and its Pix (SPEC 2.2)',
    },
    schema: duplicatePaymentFoundData,
  }),
  defineEvent({
    type: 'Transaction.DuplicateRefundAttempted',
    audit: {
      action: 'transaction.duplicate_refund_attempted',
      when: "the automatic refund of a double payment's Pix is being sent (SPEC 2.2)",
    },
    schema: duplicateRefundAttemptedData,
  }),
  defineEvent({
    type: 'Transaction.DuplicateRefunded',
    audit: { action: 'transaction.duplicate_refunded', when: "the double payment's Pix was refunded" },
    schema: duplicateRefundedData,
  }),
  defineEvent({
    type: 'Transaction.DuplicateRefundRefused',
    audit: {
      action: 'transaction.duplicate_refund_refused',
      when: 'the provider refused the automatic refund of the Pix',
    },
    schema: duplicateRefundRefusedData,
  }),
  defineEvent({
    type: 'Transaction.RefundUnconfirmed',
    audit: {
      action: 'transaction.refund_unconfirmed',
      when: "the provider's answer to a refund was uncertain; refund pending (SPEC 4.8)",
    },
    schema: refundAttemptData,
  }),
  defineEvent({
    type: 'Transaction.RefundRefused',
    audit: {
      action: 'transaction.refund_refused',
      when: 'the provider refused a refund; the charge stays paid (SPEC 4.8)',
    },
    schema: refundAttemptData,
  }),
  defineEvent({
    type: 'Transaction.DueDateChangeUnconfirmed',
    audit: {
      action: 'transaction.due_date_change_unconfirmed',
      when: "the provider's answer to a due-date change was uncertain; change pending (SPEC 4.8)",
    },
    schema: dueDateAttemptData,
  }),
  defineEvent({
    type: 'Transaction.DueDateChangeRefused',
    audit: {
      action: 'transaction.due_date_change_refused',
      when: 'the provider refused a due-date change; the date stays (SPEC 4.8)',
    },
    schema: dueDateAttemptData,
  }),
  defineEvent({
    type: 'Transaction.RefundRequested',
    audit: {
      action: 'transaction.refund_requested',
      when: 'a refund reserved before the provider is called; one at a time per charge (SPEC 4.8, 3.1 reserve then call)',
    },
    schema: refundRequestedData,
  }),
  defineEvent({
    type: 'Transaction.DueDateChangeRequested',
    audit: {
      action: 'transaction.due_date_change_requested',
      when: 'a due-date change reserved before the provider is called; one at a time per charge (SPEC 4.8)',
    },
    schema: dueDateRequestedData,
  }),
  defineEvent({
    type: 'Transaction.RefundPayoutSent',
    audit: {
      action: 'transaction.refund_payout_sent',
      when: "the provider accepted the transfer refunding a boleto paid by boleto to the payer's account; polled until transferred or returned (SPEC 4.8)",
    },
    schema: payoutSentData,
  }),
  defineEvent({
    type: 'Transaction.RefundHandedToOperator',
    audit: {
      action: 'transaction.refund_handed_to_operator',
      when: 'no payout will be made (refused, or two transfers found): an operator completes or cancels the refund (SPEC 4.8)',
    },
    schema: refundAttemptData,
  }),
  defineEvent({
    type: 'Transaction.RefundPayoutReturned',
    audit: {
      action: 'transaction.refund_payout_returned',
      when: 'the bank returned that transfer: refund failed, awaiting an operator (SPEC 4.8)',
    },
    schema: refundAttemptData,
  }),
  defineEvent({
    type: 'Transaction.RefundCancelled',
    audit: {
      action: 'transaction.refund_cancelled',
      when: 'an operator cancelled a refund awaiting completion, with a reason; the bank account is destroyed (SPEC 4.8)',
    },
    schema: refundCancelledData,
  }),
  defineEvent({
    type: 'Transaction.RefundBankAccountViewed',
    audit: {
      action: 'transaction.refund_bank_account_viewed',
      when: "a super_admin read the payer's bank account of a pending refund (every read audited)",
    },
    schema: bankAccountViewedData,
  }),
];

export type TransactionEvent = EventOf<(typeof transactionEvents)[number]>;

export type TransactionEventType = TransactionEvent['type'];
