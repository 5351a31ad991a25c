import fc from 'fast-check';
import type {
  ChargeMethod,
  ReserveTransaction,
  TransactionArtifacts,
  TransactionCommand,
  TransactionStatus,
} from '../../src/aggregates/transaction.ts';
import { TRANSACTION_STATUSES } from '../../src/aggregates/transaction.ts';

/** Fixtures for the Transaction decider (SPEC 2.2, 2.3, 3.1), shared by unit and integration tests. */

export const KEY_DIGEST = 'a'.repeat(64);

export type ChargeKind =
  | 'pix_live'
  | 'boleto_live'
  | 'pix_simulated'
  | 'boleto_simulated'
  | 'pix_test'
  | 'card_live'
  | 'card_test';

/** The masked card of a card charge's fixtures (SPEC 4.9): never a number, a code or a token. */
export const MASKED_CARD = {
  card_id: null,
  brand: 'visa',
  last_four: '1111',
  holder: 'MARIA SILVA',
  expiration: '12/2030',
} as const;

export function reserveCommand(
  transactionId: string,
  kind: ChargeKind = 'pix_live',
  over: Partial<ReserveTransaction> = {},
): ReserveTransaction {
  const method: ChargeMethod = kind.startsWith('pix')
    ? 'pix'
    : kind.startsWith('card')
      ? 'credit_card'
      : 'boleto';
  const simulated = kind !== 'pix_live' && kind !== 'boleto_live' && kind !== 'card_live';
  const livemode = kind !== 'pix_test' && kind !== 'card_test';
  const boleto =
    method === 'boleto'
      ? {
          due_date: '2026-03-10',
          instruction: null,
          penalty_rate: 2,
          interest_rate: 1,
          cancel_after_due: false,
          days_before_cancel: 0,
        }
      : null;
  return {
    kind: 'reserve',
    transactionId,
    tenantId: 'ten_acme',
    livemode,
    method,
    amount: 1250,
    reference: 'order-42',
    description: 'Pedido 42',
    costCenterId: null,
    callbackUrl: null,
    providerId: livemode ? (simulated ? 'prv_simulator' : 'prv_bank') : null,
    subaccountId: null,
    environment: simulated ? 'sandbox' : 'production',
    simulated,
    idempotencyKeySha256: KEY_DIGEST,
    expiresIn: method === 'pix' ? 3600 : null,
    boleto,
    creditCard: method === 'credit_card' ? { card: MASKED_CARD, installments: 1 } : null,
    request: {
      tenant_id: 'ten_acme',
      method,
      amount: 1250,
      reference: 'order-42',
      description: 'Pedido 42',
      customer: {
        name: 'Maria Silva',
        document: '12345678901',
        email: 'maria@example.com',
        phone: '11987654321',
        address: {
          zip_code: '01310100',
          street: 'Av. Paulista',
          number: '1000',
          district: 'Bela Vista',
          city: 'Sao Paulo',
          state: 'SP',
        },
      },
      ...(method === 'pix'
        ? { expires_in: 3600 }
        : method === 'credit_card'
          ? { installments: 1, credit_card: MASKED_CARD }
          : { boleto: { due_date: '2026-03-10', penalty_rate: 2, interest_rate: 1 } }),
    },
    providerRequest: simulated ? null : { valor: '12.50', referencia: transactionId },
    ...over,
  };
}

export function pixArtifacts(ref: string | null = 'ext_1'): TransactionArtifacts {
  return {
    provider_reference: ref,
    pix_copy_paste: '00020126580014br.gov.bcb.pix',
    pix_qr_code: 'data:image/png;base64,AAAA',
    expires_at: '2026-03-01T13:00:00.000Z',
    boleto_url: null,
    boleto_digitable_line: null,
    boleto_barcode: null,
    boleto_pix_copy_paste: null,
    boleto_pix_expires_at: null,
  };
}

export function boletoArtifacts(ref: string | null = 'ext_1'): TransactionArtifacts {
  return {
    provider_reference: ref,
    pix_copy_paste: null,
    pix_qr_code: null,
    expires_at: null,
    boleto_url: 'https://pay.example.com/cobranca/txn_1/sig/boleto.pdf',
    boleto_digitable_line: '1'.repeat(47),
    boleto_barcode: '2'.repeat(44),
    boleto_pix_copy_paste: '00020126580014br.gov.bcb.pix-boleto',
    boleto_pix_expires_at: '2026-03-11T02:59:59.000Z',
  };
}

export const noDiagnostics = {
  provider_error_code: null,
  provider_error_message: null,
  provider_http_status: null,
};

/** One command of every kind, as the command layer would build it for a charge observed in `observed`. */
export function commandOf(
  kind: TransactionCommand['kind'],
  opts: {
    transactionId: string;
    chargeKind: ChargeKind;
    observed: TransactionStatus;
    ref?: string | null;
    /** Duplicate refund commands: the attempt count observed (claim) or the attempt answered (results). */
    attempts?: number;
  },
): TransactionCommand {
  const observedStatus = opts.observed;
  const ref = opts.ref === undefined ? 'ext_1' : opts.ref;
  const boleto = opts.chargeKind.startsWith('boleto');
  switch (kind) {
    case 'reserve':
      return reserveCommand(opts.transactionId, opts.chargeKind);
    case 'record_issued':
      return { kind, artifacts: boleto ? boletoArtifacts(ref) : pixArtifacts(ref) };
    case 'record_captured':
      return { kind, providerReference: ref ?? 'ext_1', cardId: 'card_1' };
    case 'record_refused':
      return {
        kind,
        failureCode: 'provider_rejected',
        providerReference: null,
        diagnostics: {
          provider_error_code: '301',
          provider_error_message: 'Refused by the provider.',
          provider_http_status: 200,
        },
      };
    case 'record_uncertain':
      return { kind, providerReference: ref, diagnostics: noDiagnostics };
    case 'mark_unknown':
      return { kind, timeoutSeconds: 300 };
    case 'simulate_paid':
    case 'simulate_expired':
      return { kind };
    case 'refresh_pending':
      return { kind, observedStatus, artifacts: boleto ? boletoArtifacts(ref) : pixArtifacts(ref) };
    case 'refresh_processing':
      return { kind, observedStatus, providerReference: ref };
    case 'refresh_paid':
      return {
        kind,
        observedStatus,
        providerReference: ref,
        paidWith: boleto ? 'boleto' : opts.chargeKind.startsWith('card') ? 'credit_card' : 'pix',
        duplicatePayment: false,
      };
    case 'refresh_expired':
      return { kind, observedStatus, source: 'provider', providerReference: ref };
    case 'refresh_failed':
      return { kind, observedStatus, providerReference: ref, failureCode: 'debit_rejected' };
    case 'refresh_refunded':
      return { kind, observedStatus, providerReference: ref };
    case 'refund':
      return { kind, refundStatus: 'succeeded' };
    case 'change_due_date':
      return { kind, dueDate: '2026-03-20', expiresAt: null };
    case 'refresh_boleto_pix':
      return {
        kind,
        observedStatus,
        providerReference: ref,
        boletoPixCopyPaste: '00020126580014br.gov.bcb.pix-late',
        boletoPixExpiresAt: '2026-03-11T02:59:59.000Z',
      };
    case 'refresh_duplicate_payment':
      return { kind, observedStatus, providerReference: ref };
    case 'refresh_reference_found':
      return { kind, observedStatus, providerReference: ref ?? 'ext_1' };
    case 'claim_duplicate_refund':
      return { kind, observedAttempts: opts.attempts ?? 0, retryAfterMs: 20_000 };
    case 'record_duplicate_refund':
      return { kind, attempt: opts.attempts ?? 1, source: 'refund' };
    case 'record_duplicate_refund_refused':
      return {
        kind,
        attempt: opts.attempts ?? 1,
        diagnostics: {
          provider_error_code: '9004',
          provider_error_message: 'Refused by the provider.',
          provider_http_status: 200,
        },
      };
    case 'refund_unconfirmed':
    case 'refund_refused':
      return { kind, diagnostics: { ...noDiagnostics, provider_http_status: 503 } };
    case 'due_date_unconfirmed':
    case 'due_date_refused':
      return { kind, dueDate: '2026-03-25', diagnostics: { ...noDiagnostics, provider_error_code: '88' } };
    case 'request_refund':
      return { kind };
    case 'request_due_date_change':
      return { kind, dueDate: '2026-03-25' };
    case 'record_payout_sent':
      return { kind, transferId: 'tr_1' };
    case 'record_payout_returned':
    case 'hand_refund_to_operator':
      return { kind, diagnostics: { ...noDiagnostics, provider_error_code: '12' } };
    case 'complete_refund':
      return {
        kind,
        evidence: { reference: 'E0000000020260301120000000000001', paid_on: null, amount: 1250 },
      };
    case 'cancel_refund':
      return { kind, reason: 'The payer asked for a credit note instead.' };
    case 'view_refund_bank_account':
      return { kind };
  }
}

export const COMMAND_KINDS: readonly TransactionCommand['kind'][] = [
  'reserve',
  'record_issued',
  'record_captured',
  'record_refused',
  'record_uncertain',
  'mark_unknown',
  'simulate_paid',
  'simulate_expired',
  'refresh_pending',
  'refresh_processing',
  'refresh_paid',
  'refresh_expired',
  'refresh_failed',
  'refresh_refunded',
  'refund',
  'change_due_date',
  'refresh_boleto_pix',
  'refresh_reference_found',
  'refresh_duplicate_payment',
  'claim_duplicate_refund',
  'record_duplicate_refund',
  'record_duplicate_refund_refused',
  'refund_unconfirmed',
  'refund_refused',
  'due_date_unconfirmed',
  'due_date_refused',
  'request_refund',
  'request_due_date_change',
  'record_payout_sent',
  'record_payout_returned',
  'hand_refund_to_operator',
  'complete_refund',
  'cancel_refund',
  'view_refund_bank_account',
];

/**
 * A random step: a command kind, whether a refresh observed the current status or a random (possibly
 * stale) one, the external id it names, and how far the clock moved.
 */
export interface RandomStep {
  kind: TransactionCommand['kind'];
  stale: boolean;
  observed: TransactionStatus;
  ref: string | null;
  advanceSeconds: number;
  deadline: boolean;
  paidWith: ChargeMethod;
  duplicate: boolean;
  attempts: number;
}

export const randomStep: fc.Arbitrary<RandomStep> = fc.record({
  kind: fc.constantFrom(...COMMAND_KINDS),
  stale: fc.boolean(),
  observed: fc.constantFrom(...TRANSACTION_STATUSES),
  ref: fc.constantFrom<string | null>('ext_1', 'ext_1', 'ext_2', null),
  advanceSeconds: fc.constantFrom(0, 30, 600, 7200),
  deadline: fc.boolean(),
  paidWith: fc.constantFrom<ChargeMethod>('pix', 'boleto', 'credit_card'),
  duplicate: fc.boolean(),
  attempts: fc.constantFrom(0, 1, 1, 2),
});

export const chargeKind = fc.constantFrom<ChargeKind>(
  'pix_live',
  'boleto_live',
  'pix_simulated',
  'boleto_simulated',
  'pix_test',
  'card_live',
  'card_test',
);

/** The command of a random step, given the status the charge is in now. */
export function commandOfStep(
  step: RandomStep,
  transactionId: string,
  charge: ChargeKind,
  current: TransactionStatus | 'none',
): TransactionCommand {
  const observed = step.stale || current === 'none' ? step.observed : current;
  const base = commandOf(step.kind, {
    transactionId,
    chargeKind: charge,
    observed,
    ref: step.ref,
    attempts: step.attempts,
  });
  if (base.kind === 'refresh_expired' && step.deadline) return { ...base, source: 'deadline' };
  if (base.kind === 'refresh_paid')
    return { ...base, paidWith: step.paidWith, duplicatePayment: step.duplicate };
  return base;
}
