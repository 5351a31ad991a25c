import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { type DecideContext, DomainError, fold } from '../../src/aggregates/decider.ts';
import {
  type BoletoDetails,
  isRefresh,
  sameReservation,
  type TransactionCommand,
  type TransactionEvent,
  type TransactionStatus,
  transaction,
  transactionEvents,
  transactionTransitions,
} from '../../src/aggregates/transaction.ts';
import { EventRegistry } from '../../src/events/event-registry.ts';
import type { ErrorCode } from '../../src/http/errors.ts';
import { scenario } from '../support/given-when-then.ts';
import { stepByTable, transcribedTable } from '../support/state-table.ts';
import {
  boletoArtifacts,
  type ChargeKind,
  COMMAND_KINDS,
  chargeKind,
  commandOf,
  commandOfStep,
  noDiagnostics,
  pixArtifacts,
  randomStep,
  reserveCommand,
} from '../support/transactions.ts';

const T0 = new Date('2026-03-01T12:00:00.000Z');
const ctx: DecideContext = { now: T0 };
const later = (seconds: number): DecideContext => ({ now: new Date(T0.getTime() + seconds * 1000) });
const ID = 'txn_1';
const registry = new EventRegistry(transactionEvents);

/** scenario() with this file's clock as the default ctx. */
function sc() {
  return {
    given: (history: readonly TransactionEvent[]) => ({
      when: (command: TransactionCommand, at: DecideContext = ctx) =>
        scenario(transaction).given(history).when(command, at),
    }),
  };
}

function reserved(kind: ChargeKind = 'pix_live'): TransactionEvent {
  const decision = transaction.decide(reserveCommand(ID, kind), transaction.initialState, ctx);
  assert.ok(Array.isArray(decision));
  const [event] = decision;
  assert.ok(event);
  return event;
}
const issued = (kind: ChargeKind = 'pix_live', ref: string | null = 'ext_1'): TransactionEvent => ({
  type: 'Transaction.Issued',
  data: {
    transaction_id: ID,
    source: 'creation',
    ...(kind.startsWith('boleto') ? boletoArtifacts(ref) : pixArtifacts(ref)),
  },
});
const paid = (
  paidWith: 'pix' | 'boleto' = 'pix',
  source: 'provider' | 'simulation' = 'provider',
): TransactionEvent => ({
  type: 'Transaction.Paid',
  data: {
    transaction_id: ID,
    paid_with: paidWith,
    paid_at: T0.toISOString(),
    duplicate_payment_at: null,
    source,
  },
});
const expired: TransactionEvent = {
  type: 'Transaction.Expired',
  data: { transaction_id: ID, source: 'provider' },
};
const refused: TransactionEvent = {
  type: 'Transaction.Refused',
  data: {
    transaction_id: ID,
    failure_code: 'provider_rejected',
    provider_reference: null,
    provider_error_code: '301',
    provider_error_message: 'Refused by the provider.',
    provider_http_status: 200,
  },
};
const unconfirmed = (ref: string | null = 'ext_1'): TransactionEvent => ({
  type: 'Transaction.Unconfirmed',
  data: { transaction_id: ID, reason: 'uncertain_answer', provider_reference: ref, ...noDiagnostics },
});
const refunded: TransactionEvent = {
  type: 'Transaction.Refunded',
  data: { transaction_id: ID, refund_status: 'succeeded', source: 'refund' },
};

const attemptsOf = (history: readonly TransactionEvent[]) =>
  history.filter((e) => e.type === 'Transaction.DuplicateRefundAttempted').length;

const refreshPaidOf = (observed: TransactionStatus): TransactionCommand =>
  commandOf('refresh_paid', { transactionId: ID, chargeKind: 'pix_live', observed, ref: 'ext_1' });

/** A history reaching each status, for a charge of the given kind. */
/** A Pix Automatic debit's history (SPEC 4.11): a Pix charge scheduled under an authorization, no expiry. */
function debitHistory(status: TransactionStatus | 'none'): TransactionEvent[] {
  const command = reserveCommand(ID, 'pix_live', {
    expiresIn: null,
    pixAutomatic: { authorizationId: 'pxa_1', dueDate: '2026-03-20' },
  });
  const decision = transaction.decide(command, transaction.initialState, ctx);
  assert.ok(Array.isArray(decision), JSON.stringify(decision));
  return historyOf(status, 'pix_live').map((e) =>
    e.type === 'Transaction.Reserved' ? (decision[0] ?? e) : e,
  );
}

function historyOf(status: TransactionStatus | 'none', kind: ChargeKind): TransactionEvent[] {
  const r = reserved(kind);
  const paidWith = kind.startsWith('boleto') ? 'boleto' : 'pix';
  switch (status) {
    case 'none':
      return [];
    case 'processing':
      return [r];
    case 'pending':
      return [r, issued(kind)];
    case 'paid':
      return [r, issued(kind), paid(paidWith)];
    case 'expired':
      return [r, issued(kind), expired];
    case 'failed':
      return [r, refused];
    case 'unknown':
      return [r, unconfirmed()];
    case 'refunded':
      return [r, issued(kind), paid(paidWith), refunded];
  }
}

/** The charge whose guards let a cell's event through (footnotes s, b, d, p, u of the table). */
function fittingKind(kind: TransactionCommand['kind']): ChargeKind {
  if (kind === 'simulate_paid' || kind === 'simulate_expired') return 'pix_simulated';
  if (kind === 'record_captured') return 'card_live';
  const boleto: readonly TransactionCommand['kind'][] = [
    'refresh_processing',
    'change_due_date',
    'request_due_date_change',
    'refresh_boleto_pix',
    'refresh_duplicate_payment',
    'claim_duplicate_refund',
    'record_duplicate_refund',
    'record_duplicate_refund_refused',
  ];
  return boleto.includes(kind) || kind.startsWith('due_date_') ? 'boleto_live' : 'pix_live';
}

/** A boleto issued while its Pix was still being emitted (SPEC 4.2 "If the Pix is slow"). */
const issuedWithoutPix: TransactionEvent = {
  type: 'Transaction.Issued',
  data: {
    transaction_id: ID,
    source: 'creation',
    ...boletoArtifacts('ext_1'),
    boleto_pix_copy_paste: null,
    boleto_pix_expires_at: null,
  },
};
/** A boleto paid by both the boleto and its Pix (SPEC 2.2 double payment). */
const paidTwice: TransactionEvent = {
  type: 'Transaction.Paid',
  data: {
    transaction_id: ID,
    paid_with: 'boleto',
    paid_at: T0.toISOString(),
    duplicate_payment_at: T0.toISOString(),
    source: 'provider',
  },
};
const refundAttempted = (attempt: number, at: Date = T0): TransactionEvent => ({
  type: 'Transaction.DuplicateRefundAttempted',
  data: { transaction_id: ID, attempt, attempted_at: at.toISOString() },
});

/** The history a cell's guards need (footnotes p, f, u), else the status's plain history. */
function fittingHistory(status: TransactionStatus | 'none', kind: TransactionCommand['kind']) {
  const charge = fittingKind(kind);
  if (status === 'pending' && kind === 'refresh_boleto_pix') return [reserved(charge), issuedWithoutPix];
  if (status === 'unknown' && kind === 'refresh_reference_found')
    return [reserved(charge), unconfirmed(null)];
  if (status === 'paid' && kind === 'claim_duplicate_refund') {
    return [reserved(charge), issued(charge), paidTwice];
  }
  if (status === 'paid' && kind.startsWith('record_duplicate_refund')) {
    return [reserved(charge), issued(charge), paidTwice, refundAttempted(1)];
  }
  // A boleto refund to the payer's account (issue 22 item 4): by payout, its transfer sent, or by a person.
  const payout = (route: 'payout' | 'operator'): TransactionEvent => ({
    type: 'Transaction.RefundRequested',
    data: { transaction_id: ID, requested_at: T0.toISOString(), route, bank_account: VAULT_REF },
  });
  const payoutKinds = ['record_payout_sent', 'hand_refund_to_operator', 'view_refund_bank_account'];
  if (status === 'paid' && payoutKinds.includes(kind))
    return [...historyOf(status, charge), payout('payout')];
  if (status === 'paid' && kind === 'record_payout_returned') {
    const sent: TransactionEvent = {
      type: 'Transaction.RefundPayoutSent',
      data: { transaction_id: ID, transfer_id: 'tr_1' },
    };
    return [...historyOf(status, charge), payout('payout'), sent];
  }
  if (status === 'paid' && (kind === 'complete_refund' || kind === 'cancel_refund')) {
    return [...historyOf(status, charge), payout('operator')];
  }
  return historyOf(status, charge);
}

const VAULT_REF = { vault_id: 'vlt_1', hmac: 'a'.repeat(64) };

const STATES = ['none', 'processing', 'pending', 'paid', 'expired', 'failed', 'unknown', 'refunded'] as const;

/**
 * SPEC 3.1's transaction table, transcribed here by hand (issue 24 item 7): the expectation of the cell and
 * property tests below, written from SPEC.md and never read from `transactionTransitions`, so a wrong cell in
 * the code fails. Where SPEC 3.1 has no row for a cell, the `#` comment names the section or decision the
 * cell comes from (SPEC 4.7, 4.8, 2.2; docs/decisions.md issues 13 and 22). Columns are command kinds (the
 * provider's answers are kinds of their own: one SPEC row, one cell); `=` nothing appended, `replay` a
 * repeated creation, `Event>status` the event appended and the status after it, else the SPEC 7 code.
 */
const SPEC_3_1 = transcribedTable(
  [
    `
    # (none)     | create                      | request valid ...                | processing: Reserved
    # processing | provider answers at creation| result received                  | pending: Issued
    # processing | confirmed refusal           |                                  | failed: Refused
    # processing | timeout, incomplete answer or outcome unreliable             | unknown: Unconfirmed
    # processing, any | replay with same key and body                              | unchanged: replay
    # mark_unknown: the reconciler's "timeout" for a reservation nothing answered (processing only).
    # unknown: the late answer at creation still confirms or refuses it (an uncertain one again: unchanged);
    # the other states already have their answer: 409 conflict. No record: 404 not_found (SPEC 7).
    state      | reserve             | record_issued  | record_refused | record_uncertain    | mark_unknown
    none       | Reserved>processing | not_found      | not_found      | not_found           | not_found
    processing | replay              | Issued>pending | Refused>failed | Unconfirmed>unknown | Unconfirmed>unknown
    pending    | replay              | conflict       | conflict       | conflict            | =
    paid       | replay              | conflict       | conflict       | conflict            | =
    expired    | replay              | conflict       | conflict       | conflict            | =
    failed     | replay              | conflict       | conflict       | conflict            | =
    unknown    | replay              | Issued>pending | Refused>failed | =                   | =
    refunded   | replay              | conflict       | conflict       | conflict            | =
    `,
    `
    # SPEC 3.1 processing | provider answers at creation | status reported in the response; SPEC 4.9
    # "immediate capture": a card authorized at creation is paid at once (a late answer to an unknown one too).
    state      | record_captured
    none       | not_found
    processing | Captured>paid
    pending    | conflict
    paid       | conflict
    expired    | conflict
    failed     | conflict
    unknown    | Captured>paid
    refunded   | conflict
    `,
    `
    # pending | simulate with paid    | simulated pending transaction | paid: Paid
    # pending | same with expired     | same                          | expired: Expired
    # SPEC 4.7: "Only for a pending simulated transaction ..., else 409 simulation_not_allowed".
    state      | simulate_paid          | simulate_expired
    none       | not_found              | not_found
    processing | simulation_not_allowed | simulation_not_allowed
    pending    | Paid>paid              | Expired>expired
    paid       | simulation_not_allowed | simulation_not_allowed
    expired    | simulation_not_allowed | simulation_not_allowed
    failed     | simulation_not_allowed | simulation_not_allowed
    unknown    | simulation_not_allowed | simulation_not_allowed
    refunded   | simulation_not_allowed | simulation_not_allowed
    `,
    `
    # pending   | refresh           | provider reports paid       | paid
    # pending   | refresh on boleto | provider status 2           | processing (not a settlement)
    # pending   | refresh on simulator | deadline passed          | expired
    # paid      | refresh or refund | provider reports refund     | refunded (only move allowed from paid)
    # expired, failed, refunded | refresh | provider update       | unchanged; regressing update refused
    #   with 409 provider_status_conflict (the same final state read again: unchanged, nothing appended)
    # unknown   | refresh (with provider_reference)              | the status the provider reports; an open
    #   charge is confirmed by its artifacts (Issued). A refund of an unpaid charge regresses nothing it may
    #   reach: 409 provider_status_conflict. processing (a boleto's payment intent) read again: open
    #   (AwaitingPayment), paid or expired; still processing: unchanged.
    state      | refresh_pending          | refresh_processing           | refresh_paid             | refresh_expired          | refresh_refunded
    none       | not_found                | not_found                    | not_found                | not_found                | not_found
    processing | AwaitingPayment>pending  | =                            | Paid>paid                | Expired>expired          | provider_status_conflict
    pending    | =                        | PaymentProcessing>processing | Paid>paid                | Expired>expired          | provider_status_conflict
    paid       | provider_status_conflict | provider_status_conflict     | =                        | provider_status_conflict | Refunded>refunded
    expired    | provider_status_conflict | provider_status_conflict     | provider_status_conflict | =                        | provider_status_conflict
    failed     | provider_status_conflict | provider_status_conflict     | provider_status_conflict | provider_status_conflict | provider_status_conflict
    unknown    | Issued>pending           | PaymentProcessing>processing | Paid>paid                | Expired>expired          | provider_status_conflict
    refunded   | provider_status_conflict | provider_status_conflict     | provider_status_conflict | provider_status_conflict | =
    `,
    `
    # SPEC 3.1 leaves the mapping of other provider statuses open (docs/decisions.md "Pix Automatic (issue
    # 27): debits and polling"): a debit the payer's bank rejected or that was cancelled (BCB REJEITADA,
    # CANCELADA) is failed; final states are never reopened; the same failure read again is unchanged.
    # A debit still being scheduled has nothing to read yet: 409 conflict.
    state      | refresh_failed
    none       | not_found
    processing | conflict
    pending    | Refused>failed
    paid       | provider_status_conflict
    expired    | provider_status_conflict
    failed     | =
    unknown    | Refused>failed
    refunded   | provider_status_conflict
    `,
    `
    # SPEC 4.2 "If the Pix is slow ... appears in a later GET": a pending boleto's Pix, else nothing.
    # SPEC 3.1 unknown | refresh | no provider_reference: the id found by reference is kept (unknown only).
    # SPEC 2.2 double payment "gives boleto and the Pix is refunded": found on a paid boleto, else nothing.
    state      | refresh_boleto_pix      | refresh_reference_found        | refresh_duplicate_payment
    none       | not_found               | not_found                      | not_found
    processing | =                       | conflict                       | =
    pending    | BoletoPixIssued>pending | conflict                       | =
    paid       | =                       | conflict                       | DuplicatePaymentFound>paid
    expired    | =                       | conflict                       | =
    failed     | =                       | conflict                       | =
    unknown    | =                       | ProviderReferenceFound>unknown | =
    refunded   | =                       | conflict                       | =
    `,
    `
    # SPEC 2.2: the Pix of a double payment is refunded automatically, from paid (claim, then its answer);
    # once refunded there is nothing left to refund: unchanged.
    state      | claim_duplicate_refund          | record_duplicate_refund  | record_duplicate_refund_refused
    none       | not_found                       | not_found                | not_found
    processing | conflict                        | conflict                 | conflict
    pending    | conflict                        | conflict                 | conflict
    paid       | DuplicateRefundAttempted>paid   | DuplicateRefunded>paid   | DuplicateRefundRefused>paid
    expired    | conflict                        | conflict                 | conflict
    failed     | conflict                        | conflict                 | conflict
    unknown    | conflict                        | conflict                 | conflict
    refunded   | =                               | =                        | =
    `,
    `
    # SPEC 4.8 refund: "integral refund of a paid charge"; SPEC 3.1 paid | refund | provider reports refund
    # | refunded. Reserved before the call (issue 22), answered uncertain (pending) or refused (failed), the
    # charge staying paid; an already refunded charge: unchanged; any other: 409 conflict.
    state      | request_refund     | refund            | refund_unconfirmed     | refund_refused
    none       | not_found          | not_found         | not_found              | not_found
    processing | conflict           | conflict          | conflict               | conflict
    pending    | conflict           | conflict          | conflict               | conflict
    paid       | RefundRequested>paid | Refunded>refunded | RefundUnconfirmed>paid | RefundRefused>paid
    expired    | conflict           | conflict          | conflict               | conflict
    failed     | conflict           | conflict          | conflict               | conflict
    unknown    | conflict           | conflict          | conflict               | conflict
    refunded   | =                  | =                 | =                      | =
    `,
    `
    # SPEC 4.8 "A boleto paid by boleto needs a bank account of the payer" (issue 22 item 4): a payout's
    # answers and a person's completion, cancellation or read of the account, all on a paid charge. Once
    # refunded, the payout's late answers change nothing; a person's actions are 409 conflict (exactly once).
    state      | record_payout_sent     | record_payout_returned     | hand_refund_to_operator     | complete_refund   | cancel_refund        | view_refund_bank_account
    none       | not_found              | not_found                  | not_found                   | not_found         | not_found            | not_found
    processing | conflict               | conflict                   | conflict                    | conflict          | conflict             | conflict
    pending    | conflict               | conflict                   | conflict                    | conflict          | conflict             | conflict
    paid       | RefundPayoutSent>paid  | RefundPayoutReturned>paid  | RefundHandedToOperator>paid | Refunded>refunded | RefundCancelled>paid | RefundBankAccountViewed>paid
    expired    | conflict               | conflict                   | conflict                    | conflict          | conflict             | conflict
    failed     | conflict               | conflict                   | conflict                    | conflict          | conflict             | conflict
    unknown    | conflict               | conflict                   | conflict                    | conflict          | conflict             | conflict
    refunded   | =                      | =                          | =                           | conflict          | conflict             | conflict
    `,
    `
    # SPEC 4.8: "changes the due date of an open boleto": pending only, the status stays; reserved before
    # the call (issue 22), answered uncertain or refused. Any other status: 409 conflict.
    state      | request_due_date_change         | change_due_date        | due_date_unconfirmed              | due_date_refused
    none       | not_found                       | not_found              | not_found                         | not_found
    processing | conflict                        | conflict               | conflict                          | conflict
    pending    | DueDateChangeRequested>pending  | DueDateChanged>pending | DueDateChangeUnconfirmed>pending  | DueDateChangeRefused>pending
    paid       | conflict                        | conflict               | conflict                          | conflict
    expired    | conflict                        | conflict               | conflict                          | conflict
    failed     | conflict                        | conflict               | conflict                          | conflict
    unknown    | conflict                        | conflict               | conflict                          | conflict
    refunded   | conflict                        | conflict               | conflict                          | conflict
    `,
  ],
  'Transaction.',
);

/** The transcribed cell of (state, kind). */
function specCell(status: TransactionStatus | 'none', kind: TransactionCommand['kind']) {
  const move = SPEC_3_1[status]?.[kind];
  assert.ok(move, `SPEC 3.1 transcription has ${status} x ${kind}`);
  return move;
}

describe('transaction state table: the code against the SPEC 3.1 transcription', () => {
  test('the transcription has one cell for every status and every command kind', () => {
    assert.deepEqual(Object.keys(SPEC_3_1).sort(), [...STATES].sort());
    for (const status of STATES) {
      assert.deepEqual(Object.keys(SPEC_3_1[status] ?? {}).sort(), [...COMMAND_KINDS].sort(), status);
    }
  });

  test('transactionTransitions is the transcription, cell for cell', () => {
    for (const status of STATES) {
      for (const kind of COMMAND_KINDS) {
        assert.deepEqual(transactionTransitions[status][kind], specCell(status, kind), `${status} x ${kind}`);
      }
    }
  });
});

describe('transaction decider, cell by cell (SPEC 3.1 transcription)', () => {
  for (const status of STATES) {
    for (const kind of COMMAND_KINDS) {
      const move = specCell(status, kind);
      const label =
        'refuse' in move ? move.refuse : 'noop' in move ? 'no-op' : 'repeat' in move ? 'repeat' : move.emits;
      test(`${status} x ${kind}: ${label}`, () => {
        const charge = fittingKind(kind);
        // A processing charge a refresh can query is a boleto whose intent is being processed (note r).
        const queryable = status === 'processing' && kind.startsWith('refresh_');
        const given =
          kind === 'refresh_failed'
            ? debitHistory(status)
            : queryable
              ? [
                  ...historyOf('pending', 'boleto_live'),
                  { type: 'Transaction.PaymentProcessing', data: { transaction_id: ID } } as const,
                ]
              : fittingHistory(status, kind);
        const observed = status === 'none' ? 'pending' : status;
        const command = commandOf(kind, { transactionId: ID, chargeKind: charge, observed });
        const when = sc().given(given).when(command, later(3600));
        if ('refuse' in move) {
          when.thenFails(move.refuse);
        } else if ('noop' in move || 'repeat' in move) {
          when.thenEmits([]);
        } else {
          const decision = transaction.decide(command, fold(transaction, given), later(3600));
          assert.ok(Array.isArray(decision), `${status} x ${kind} emits`);
          assert.deepEqual(
            decision.map((e) => e.type),
            [move.emits],
          );
          const after = when.thenEmits(decision);
          assert.equal(after.status, move.to);
          for (const e of decision) registry.encode(e); // every emitted payload satisfies its zod schema
        }
      });
    }
  }
});

describe('transaction decider: a charge failed after issue (cell (x))', () => {
  const failedRead = (failureCode: 'debit_rejected' | 'debit_cancelled') =>
    ({ kind: 'refresh_failed', observedStatus: 'pending', providerReference: 'ext_1', failureCode }) as const;

  test('a cancelled debit is failed with failure_code debit_cancelled, no provider diagnostics', () => {
    sc()
      .given(debitHistory('pending'))
      .when(failedRead('debit_cancelled'))
      .thenEmits([
        {
          type: 'Transaction.Refused',
          data: {
            transaction_id: ID,
            failure_code: 'debit_cancelled',
            provider_reference: 'ext_1',
            provider_http_status: null,
            provider_error_code: null,
            provider_error_message: null,
          },
        },
      ]);
  });

  for (const kind of ['pix_live', 'boleto_live', 'card_live'] as const) {
    test(`a ${kind} charge read as failed after issue: 502 provider_refresh_failed, nothing appended`, () => {
      sc()
        .given(historyOf('pending', kind))
        .when(failedRead('debit_rejected'))
        .thenFails('provider_refresh_failed');
    });
  }
});

describe('transaction decider: reservation (SPEC 2.3, 3.1 create)', () => {
  test('reserve records the snapshot and the facts, the key only as a digest, time from ctx.now', () => {
    const event = reserved();
    assert.equal(event.type, 'Transaction.Reserved');
    if (event.type !== 'Transaction.Reserved') return;
    assert.equal(event.data.reserved_at, T0.toISOString());
    assert.equal(event.data.expires_in, 3600);
    assert.equal(event.data.request.customer.phone, '11987654321');
    assert.deepEqual(event.data.provider_request, { valor: '12.50', referencia: ID });
    assert.ok(!JSON.stringify(event).includes('Idempotency'));
    const state = fold(transaction, [event]);
    assert.equal(state.status, 'processing');
  });

  test('a replay with the same facts is a no-op; other facts are 409 idempotency_conflict', () => {
    sc().given([reserved()]).when(reserveCommand(ID), later(60)).thenEmits([]);
    sc()
      .given([reserved(), issued()])
      .when(
        reserveCommand(ID, 'pix_live', {
          amount: 1300,
          request: { ...reserveCommand(ID).request, amount: 1300 },
        }),
      )
      .thenFails('idempotency_conflict');
    assert.ok(sameReservation(fold(transaction, [reserved()]), reserveCommand(ID)));
  });

  test('SPEC 7 validation_error: inconsistent facts are refused before anything is written', () => {
    const bad: Partial<Parameters<typeof reserveCommand>[2]>[] = [
      { amount: 0 },
      { amount: 100_000_001 },
      { amount: 12.5 },
      { expiresIn: 59 },
      { expiresIn: null },
      { idempotencyKeySha256: 'the-raw-key' },
      { providerRequest: { a: 1 }, simulated: true, environment: 'sandbox' },
      { livemode: false, providerId: null },
      { tenantId: 'ten_other' },
    ];
    for (const over of bad) {
      sc()
        .given([])
        .when(reserveCommand(ID, 'pix_live', over))
        .thenFails('validation_error');
    }
    sc()
      .given([])
      .when(reserveCommand(ID, 'boleto_live', { expiresIn: 3600 }))
      .thenFails('validation_error');
    sc()
      .given([])
      .when(reserveCommand(ID, 'boleto_live', { boleto: null }))
      .thenFails('validation_error');
  });

  test('SPEC 1: Pix at the external provider in sandbox is provider_pix_sandbox_unsupported', () => {
    sc()
      .given([])
      .when(reserveCommand(ID, 'pix_live', { environment: 'sandbox' }))
      .thenFails('provider_pix_sandbox_unsupported');
  });

  test('a test-mode charge is simulated and has no provider body', () => {
    const state = sc()
      .given([])
      .when(reserveCommand(ID, 'pix_test'))
      .thenEmits([reserved('pix_test')]);
    assert.equal(state.status, 'processing');
  });
});

describe('transaction decider: outcome at creation (SPEC 3.1, 4.1, 4.2)', () => {
  test('issued -> pending with the artifacts', () => {
    const state = sc()
      .given([reserved()])
      .when({ kind: 'record_issued', artifacts: pixArtifacts() })
      .thenEmits([issued()]);
    assert.equal(state.status !== 'none' && state.artifacts.provider_reference, 'ext_1');
    assert.equal(state.status, 'pending');
  });

  test('confirmed refusal -> failed with failure_code and sanitized diagnostics', () => {
    const state = sc()
      .given([reserved()])
      .when(
        commandOf('record_refused', { transactionId: ID, chargeKind: 'pix_live', observed: 'processing' }),
      )
      .thenEmits([refused]);
    assert.equal(state.status, 'failed');
  });

  test('diagnostics outside SPEC 8 limits cannot be written (schema)', () => {
    for (const d of [
      { provider_error_code: '12345678901' },
      { provider_error_code: 'E12' },
      { provider_error_message: 'x'.repeat(401) },
      { provider_http_status: 99 },
      { provider_http_status: 600 },
    ]) {
      assert.throws(() => registry.encode({ type: 'Transaction.Refused', data: { ...refused.data, ...d } }));
    }
  });

  test('boleto_details (issue 23 item 1.11): Issued and DueDateChanged are read with and without it; folded', () => {
    const details: BoletoDetails = {
      our_number: '31285570001000001',
      agency: '1234',
      agency_dv: '3',
      beneficiary_code: '56789-2',
      wallet: '17',
      document_kind: 'DM',
      accept: 'N',
    };
    const older = issued('boleto_live');
    const withDetails: TransactionEvent = {
      type: 'Transaction.Issued',
      data: { ...(older.data as object), boleto_details: details } as never,
    };
    // Events written before the field existed decode as stored; new ones with it, or with null.
    const stored = (e: TransactionEvent) => ({ type: e.type, schemaVersion: 1, data: e.data });
    assert.equal('boleto_details' in (registry.decode(stored(older)).data as object), false);
    assert.deepEqual(
      (registry.decode(stored(withDetails)).data as { boleto_details: unknown }).boleto_details,
      details,
    );
    registry.encode({
      ...withDetails,
      data: { ...withDetails.data, boleto_details: null },
    } as TransactionEvent);
    // Never free text, nor an unknown key.
    for (const bad of [
      { ...details, our_number: 'Maria Silva' },
      { ...details, accept: 'Sim' },
      { ...details, wallet: 'CARTEIRA' },
      { ...details, beneficiary_code: '9'.repeat(31) },
      { ...details, payer: 'Maria' },
    ]) {
      assert.throws(() =>
        registry.encode({
          ...withDetails,
          data: { ...withDetails.data, boleto_details: bad },
        } as TransactionEvent),
      );
    }
    const pending = fold(transaction, [reserved('boleto_live'), withDetails]);
    assert.ok(pending.status !== 'none');
    assert.deepEqual(pending.artifacts.boleto_details, details);
    assert.equal(fold(transaction, [reserved('boleto_live'), older]).status, 'pending');

    // A due-date change without the field (older events, a change read back) keeps them; with it, replaces them.
    const changed = (extra: object): TransactionEvent => ({
      type: 'Transaction.DueDateChanged',
      data: {
        transaction_id: ID,
        boleto_due_date: '2026-03-20',
        previous_due_date: '2026-03-10',
        expires_at: null,
        ...extra,
      },
    });
    const renewed: BoletoDetails = { ...details, our_number: '31285570001000009' };
    for (const e of [changed({}), changed({ boleto_details: renewed })]) registry.encode(e);
    const kept = fold(transaction, [reserved('boleto_live'), withDetails, changed({})]);
    assert.ok(kept.status !== 'none');
    assert.deepEqual(kept.artifacts.boleto_details, details);
    const replaced = fold(transaction, [
      reserved('boleto_live'),
      withDetails,
      changed({ boleto_details: renewed }),
    ]);
    assert.ok(replaced.status !== 'none');
    assert.deepEqual(replaced.artifacts.boleto_details, renewed);
    // The decider writes what the change carries.
    sc()
      .given([reserved('boleto_live'), withDetails])
      .when({
        kind: 'change_due_date',
        dueDate: '2026-03-20',
        expiresAt: null,
        artifacts: {
          boleto_digitable_line: null,
          boleto_barcode: null,
          boleto_pix_copy_paste: null,
          boleto_pix_expires_at: null,
          boleto_details: renewed,
        },
      })
      .thenEmits([
        changed({
          boleto_digitable_line: null,
          boleto_barcode: null,
          boleto_pix_copy_paste: null,
          boleto_pix_expires_at: null,
          boleto_details: renewed,
        }),
      ]);
  });

  test('uncertain -> unknown; the reconciler marks a stale processing unknown, never before the timeout', () => {
    sc()
      .given([reserved()])
      .when({ kind: 'record_uncertain', providerReference: 'ext_1', diagnostics: noDiagnostics })
      .thenEmits([unconfirmed()]);
    sc().given([reserved()]).when({ kind: 'mark_unknown', timeoutSeconds: 300 }, later(299)).thenEmits([]);
    sc()
      .given([reserved()])
      .when({ kind: 'mark_unknown', timeoutSeconds: 300 }, later(300))
      .thenEmits([
        {
          type: 'Transaction.Unconfirmed',
          data: {
            transaction_id: ID,
            reason: 'processing_timeout',
            provider_reference: null,
            ...noDiagnostics,
          },
        },
      ]);
  });

  test('SPEC 3.1 / DESIGN reconciler: a boleto payment intent back in processing is answered, never marked unknown', () => {
    sc()
      .given([
        reserved('boleto_live'),
        issued('boleto_live'),
        { type: 'Transaction.PaymentProcessing', data: { transaction_id: ID } },
      ])
      .when({ kind: 'mark_unknown', timeoutSeconds: 300 }, later(86_400))
      .thenEmits([]);
  });

  test('a late answer resolves unknown: issued -> pending, refused -> failed', () => {
    sc()
      .given([reserved(), unconfirmed(null)])
      .when({ kind: 'record_issued', artifacts: pixArtifacts() })
      .thenEmits([issued()]);
    sc()
      .given([reserved(), unconfirmed(null)])
      .when(commandOf('record_refused', { transactionId: ID, chargeKind: 'pix_live', observed: 'unknown' }))
      .thenEmits([refused]);
  });
});

describe('transaction decider: simulate (SPEC 4.7)', () => {
  test('pending simulated -> paid / expired, no provider', () => {
    sc()
      .given(historyOf('pending', 'pix_simulated'))
      .when({ kind: 'simulate_paid' })
      .thenEmits([paid('pix', 'simulation')]);
    sc()
      .given(historyOf('pending', 'boleto_simulated'))
      .when({ kind: 'simulate_paid' })
      .thenEmits([paid('boleto', 'simulation')]);
    sc()
      .given(historyOf('pending', 'pix_test'))
      .when({ kind: 'simulate_expired' })
      .thenEmits([{ type: 'Transaction.Expired', data: { transaction_id: ID, source: 'simulation' } }]);
  });

  test('409 simulation_not_allowed: a real charge, or a simulated one that is not pending', () => {
    sc()
      .given(historyOf('pending', 'pix_live'))
      .when({ kind: 'simulate_paid' })
      .thenFails('simulation_not_allowed');
    sc()
      .given(historyOf('pending', 'boleto_live'))
      .when({ kind: 'simulate_expired' })
      .thenFails('simulation_not_allowed');
    sc()
      .given(historyOf('paid', 'pix_simulated'))
      .when({ kind: 'simulate_paid' })
      .thenFails('simulation_not_allowed');
  });
});

describe('transaction decider: refresh (SPEC 3.1, 4.6)', () => {
  const refresh = (
    kind: TransactionCommand['kind'],
    observed: TransactionStatus,
    charge: ChargeKind = 'pix_live',
    ref: string | null = 'ext_1',
  ) => commandOf(kind, { transactionId: ID, chargeKind: charge, observed, ref });

  test('pending -> paid; boleto paid_with and duplicate payment', () => {
    sc()
      .given(historyOf('pending', 'pix_live'))
      .when(refresh('refresh_paid', 'pending'))
      .thenEmits([paid('pix')]);
    const state = sc()
      .given(historyOf('pending', 'boleto_live'))
      .when({
        kind: 'refresh_paid',
        observedStatus: 'pending',
        providerReference: 'ext_1',
        paidWith: 'pix',
        duplicatePayment: true,
      })
      .thenEmits([
        {
          type: 'Transaction.Paid',
          data: {
            transaction_id: ID,
            paid_with: 'pix',
            paid_at: T0.toISOString(),
            duplicate_payment_at: T0.toISOString(),
            source: 'provider',
          },
        },
      ]);
    assert.equal(state.status === 'paid' && state.paidWith, 'pix');
  });

  test('a Pix reported paid by boleto diverges: 502 provider_refresh_failed', () => {
    sc()
      .given(historyOf('pending', 'pix_live'))
      .when({
        kind: 'refresh_paid',
        observedStatus: 'pending',
        providerReference: 'ext_1',
        paidWith: 'boleto',
        duplicatePayment: false,
      })
      .thenFails('provider_refresh_failed');
  });

  test('boleto provider status 2 -> processing (not a settlement); back to pending; Pix status 2 is unknown', () => {
    const state = sc()
      .given(historyOf('pending', 'boleto_live'))
      .when(refresh('refresh_processing', 'pending', 'boleto_live'))
      .thenEmits([{ type: 'Transaction.PaymentProcessing', data: { transaction_id: ID } }]);
    assert.equal(state.status, 'processing');
    sc()
      .given([
        ...historyOf('pending', 'boleto_live'),
        { type: 'Transaction.PaymentProcessing', data: { transaction_id: ID } },
      ])
      .when(refresh('refresh_pending', 'processing', 'boleto_live'))
      .thenEmits([{ type: 'Transaction.AwaitingPayment', data: { transaction_id: ID } }]);
    sc()
      .given(historyOf('pending', 'pix_live'))
      .when(refresh('refresh_processing', 'pending'))
      .thenFails('provider_refresh_failed');
  });

  test('deadline: a simulated or Pix charge expires once expires_at has passed; a real boleto never by deadline', () => {
    const deadline = {
      kind: 'refresh_expired',
      observedStatus: 'pending',
      source: 'deadline',
      providerReference: null,
    } as const;
    // pixArtifacts expires at 13:00Z, one hour after T0.
    sc().given(historyOf('pending', 'pix_simulated')).when(deadline, later(3599)).thenEmits([]);
    sc()
      .given(historyOf('pending', 'pix_simulated'))
      .when(deadline, later(3600))
      .thenEmits([{ type: 'Transaction.Expired', data: { transaction_id: ID, source: 'deadline' } }]);
    sc()
      .given(historyOf('pending', 'boleto_live'))
      .when(deadline, later(86_400 * 400))
      .thenEmits([]);
  });

  test('paid -> refunded only; paid never regresses (409 provider_status_conflict)', () => {
    sc()
      .given(historyOf('paid', 'pix_live'))
      .when(refresh('refresh_refunded', 'paid'))
      .thenEmits([
        {
          type: 'Transaction.Refunded',
          data: { transaction_id: ID, refund_status: 'succeeded', source: 'provider' },
        },
      ]);
    for (const k of ['refresh_pending', 'refresh_processing', 'refresh_expired'] as const) {
      sc()
        .given(historyOf('paid', 'boleto_live'))
        .when(refresh(k, 'paid', 'boleto_live'))
        .thenFails('provider_status_conflict');
    }
  });

  test('expired, failed, refunded are never reopened: a regressing update is 409, the same one a no-op', () => {
    for (const status of ['expired', 'failed', 'refunded'] as const) {
      for (const k of ['refresh_pending', 'refresh_processing', 'refresh_paid'] as const) {
        sc()
          .given(historyOf(status, 'boleto_live'))
          .when(refresh(k, status, 'boleto_live'))
          .thenFails('provider_status_conflict');
      }
    }
    sc().given(historyOf('expired', 'pix_live')).when(refresh('refresh_expired', 'expired')).thenEmits([]);
    sc().given(historyOf('refunded', 'pix_live')).when(refresh('refresh_refunded', 'refunded')).thenEmits([]);
  });

  test('unknown without provider_reference: 409 reconciliation_required; with it, the refresh resolves it', () => {
    for (const k of ['refresh_pending', 'refresh_processing', 'refresh_paid', 'refresh_expired'] as const) {
      sc()
        .given([reserved('boleto_live'), unconfirmed(null)])
        .when(refresh(k, 'unknown', 'boleto_live'))
        .thenFails('reconciliation_required');
    }
    sc()
      .given([reserved(), unconfirmed('ext_1')])
      .when(refresh('refresh_pending', 'unknown'))
      .thenEmits([{ ...issued(), data: { ...issued().data, source: 'refresh' } } as TransactionEvent]);
    sc().given([reserved()]).when(refresh('refresh_paid', 'processing')).thenFails('reconciliation_required');
  });

  test('a result about another external id: 502 provider_refresh_failed, state kept', () => {
    sc()
      .given(historyOf('pending', 'pix_live'))
      .when(refresh('refresh_paid', 'pending', 'pix_live', 'ext_2'))
      .thenFails('provider_refresh_failed');
    sc()
      .given([reserved(), unconfirmed('ext_1')])
      .when(refresh('refresh_paid', 'unknown', 'pix_live', 'ext_2'))
      .thenFails('provider_refresh_failed');
  });

  test('concurrent refreshes: a result read against an older status never overwrites a newer confirmation', () => {
    // Two refreshes read `pending`; the first records paid; the second, carrying a stale expiry, is dropped.
    const history = [...historyOf('pending', 'pix_live'), paid('pix')];
    sc().given(history).when(refresh('refresh_expired', 'pending')).thenEmits([]);
    sc().given(history).when(refresh('refresh_processing', 'pending')).thenEmits([]);
    // A final state is protected the same way: no 409 for a stale reader, just nothing.
    sc().given(historyOf('expired', 'pix_live')).when(refresh('refresh_paid', 'pending')).thenEmits([]);
  });
});

describe('transaction decider: late boleto Pix, reference found, double payment (SPEC 2.2, 3.1, 4.2; issue 13)', () => {
  const latePix = (observed: TransactionStatus, ref: string | null = 'ext_1') =>
    commandOf('refresh_boleto_pix', { transactionId: ID, chargeKind: 'boleto_live', observed, ref });

  test('SPEC 4.2: a pending boleto issued without its Pix gets it from a later read, once', () => {
    const given = [reserved('boleto_live'), issuedWithoutPix];
    const state = sc()
      .given(given)
      .when(latePix('pending'))
      .thenEmits([
        {
          type: 'Transaction.BoletoPixIssued',
          data: {
            transaction_id: ID,
            boleto_pix_copy_paste: '00020126580014br.gov.bcb.pix-late',
            boleto_pix_expires_at: '2026-03-11T02:59:59.000Z',
          },
        },
      ]);
    assert.equal(
      state.status === 'pending' && state.artifacts.boleto_pix_copy_paste,
      '00020126580014br.gov.bcb.pix-late',
    );
    // The Pix is never replaced: a boleto that has one ignores another read of it.
    sc().given(historyOf('pending', 'boleto_live')).when(latePix('pending')).thenEmits([]);
    // Not pending any more (paid, or a payment intent): SPEC 2.2 shows the Pix only while pending.
    sc()
      .given([...given, paidTwice])
      .when(latePix('paid'))
      .thenEmits([]);
    // A read about another external id diverges.
    sc().given(given).when(latePix('pending', 'ext_2')).thenFails('provider_refresh_failed');
    // A stale read (the status moved on since it was read) is dropped.
    sc()
      .given([...given, paid('boleto')])
      .when(latePix('pending'))
      .thenEmits([]);
  });

  test('SPEC 3.1 unknown without provider_reference: the id found by reference is stored, status kept', () => {
    const found = (ref: string) =>
      ({ kind: 'refresh_reference_found', observedStatus: 'unknown', providerReference: ref }) as const;
    const state = sc()
      .given([reserved(), unconfirmed(null)])
      .when(found('ext_9'))
      .thenEmits([
        {
          type: 'Transaction.ProviderReferenceFound',
          data: { transaction_id: ID, provider_reference: 'ext_9', source: 'query_by_reference' },
        },
      ]);
    assert.equal(state.status === 'unknown' && state.artifacts.provider_reference, 'ext_9');
    sc()
      .given([reserved(), unconfirmed('ext_9')])
      .when(found('ext_9'))
      .thenEmits([]);
    sc()
      .given([reserved(), unconfirmed('ext_1')])
      .when(found('ext_9'))
      .thenFails('provider_refresh_failed');
    // Without it a refresh result cannot apply; with it, the usual refresh of that id resolves the charge.
    sc()
      .given([reserved(), unconfirmed(null)])
      .when(refreshPaidOf('unknown'))
      .thenFails('reconciliation_required');
    const adopted: TransactionEvent = {
      type: 'Transaction.ProviderReferenceFound',
      data: { transaction_id: ID, provider_reference: 'ext_1', source: 'query_by_reference' },
    };
    sc()
      .given([reserved(), unconfirmed(null), adopted])
      .when(refreshPaidOf('unknown'))
      .thenEmits([paid('pix')]);
  });

  test('SPEC 2.2 double payment: paid_with boleto, duplicate_payment_at, the Pix refund owed once', () => {
    const state = sc()
      .given([reserved('boleto_live'), issued('boleto_live')])
      .when({
        kind: 'refresh_paid',
        observedStatus: 'pending',
        providerReference: 'ext_1',
        paidWith: 'boleto',
        duplicatePayment: true,
      })
      .thenEmits([paidTwice]);
    assert.deepEqual(state.status === 'paid' && state.duplicateRefund, {
      status: 'due',
      attempts: 0,
      attemptedAt: null,
    });
    const paidHistory = [reserved('boleto_live'), issued('boleto_live'), paidTwice];
    // Claim before calling: the first claim is attempt 1; a claim on a stale count is dropped.
    sc()
      .given(paidHistory)
      .when({ kind: 'claim_duplicate_refund', observedAttempts: 0, retryAfterMs: 20_000 })
      .thenEmits([refundAttempted(1)]);
    sc()
      .given([...paidHistory, refundAttempted(1)])
      .when({ kind: 'claim_duplicate_refund', observedAttempts: 0, retryAfterMs: 20_000 })
      .thenEmits([]);
    // An uncertain attempt is re-claimed only by a pass that read attempt 1 (after re-reading the provider),
    // and only once that call has surely ended (retryAfterMs, the provider call timeout): never two in flight.
    const earlier = new Date(T0.getTime() - 20_000);
    sc()
      .given([...paidHistory, refundAttempted(1, earlier)])
      .when({ kind: 'claim_duplicate_refund', observedAttempts: 1, retryAfterMs: 20_000 })
      .thenEmits([refundAttempted(2)]);
    sc()
      .given([...paidHistory, refundAttempted(1, new Date(T0.getTime() - 19_999))])
      .when({ kind: 'claim_duplicate_refund', observedAttempts: 1, retryAfterMs: 20_000 })
      .thenEmits([]);
    const refundedPix = (attempt: number, source: 'refund' | 'provider'): TransactionEvent => ({
      type: 'Transaction.DuplicateRefunded',
      data: { transaction_id: ID, attempt, source },
    });
    const done = sc()
      .given([...paidHistory, refundAttempted(1)])
      .when({ kind: 'record_duplicate_refund', attempt: 1, source: 'refund' })
      .thenEmits([refundedPix(1, 'refund')]);
    assert.equal(done.status, 'paid');
    assert.equal(done.status === 'paid' && done.duplicateRefund?.status, 'succeeded');
    // Settled: never claimed nor recorded again.
    const settled = [...paidHistory, refundAttempted(1), refundedPix(1, 'refund')];
    sc()
      .given(settled)
      .when({ kind: 'claim_duplicate_refund', observedAttempts: 1, retryAfterMs: 20_000 })
      .thenEmits([]);
    sc().given(settled).when({ kind: 'record_duplicate_refund', attempt: 1, source: 'refund' }).thenEmits([]);
    // An answer to an older attempt changes nothing; a read showing the Pix returned settles it.
    sc()
      .given([...paidHistory, refundAttempted(1), refundAttempted(2)])
      .when({ kind: 'record_duplicate_refund', attempt: 1, source: 'refund' })
      .thenEmits([]);
    sc()
      .given([...paidHistory, refundAttempted(1)])
      .when({ kind: 'record_duplicate_refund', attempt: 1, source: 'provider' })
      .thenEmits([refundedPix(1, 'provider')]);
    // A refusal is recorded with its diagnostics and not retried automatically.
    const refusedPix = commandOf('record_duplicate_refund_refused', {
      transactionId: ID,
      chargeKind: 'boleto_live',
      observed: 'paid',
      attempts: 1,
    });
    const after = sc()
      .given([...paidHistory, refundAttempted(1)])
      .when(refusedPix)
      .thenEmits([
        {
          type: 'Transaction.DuplicateRefundRefused',
          data: {
            transaction_id: ID,
            attempt: 1,
            provider_error_code: '9004',
            provider_error_message: 'Refused by the provider.',
            provider_http_status: 200,
          },
        },
      ]);
    assert.equal(after.status === 'paid' && after.duplicateRefund?.status, 'refused');
    // A boleto recorded paid once (by its Pix, say) and read later as paid by both: boleto, the Pix owed.
    const found = sc()
      .given([reserved('boleto_live'), issued('boleto_live'), paid('pix')])
      .when({ kind: 'refresh_duplicate_payment', observedStatus: 'paid', providerReference: 'ext_1' })
      .thenEmits([
        {
          type: 'Transaction.DuplicatePaymentFound',
          data: { transaction_id: ID, paid_with: 'boleto', duplicate_payment_at: T0.toISOString() },
        },
      ]);
    assert.equal(found.status === 'paid' && found.paidWith, 'boleto');
    assert.equal(found.status === 'paid' && found.duplicateRefund?.status, 'due');
    sc()
      .given(paidHistory)
      .when({ kind: 'refresh_duplicate_payment', observedStatus: 'paid', providerReference: 'ext_1' })
      .thenEmits([]);
    // Nothing is owed without a double payment.
    sc()
      .given(historyOf('paid', 'boleto_live'))
      .when({ kind: 'claim_duplicate_refund', observedAttempts: 0, retryAfterMs: 20_000 })
      .thenEmits([]);
    sc()
      .given(historyOf('pending', 'boleto_live'))
      .when({ kind: 'claim_duplicate_refund', observedAttempts: 0, retryAfterMs: 20_000 })
      .thenFails('conflict');
  });
});

describe('transaction decider: refund and due date (SPEC 4.8)', () => {
  test('refund: paid -> refunded with refund.status; repeating it is a no-op; unpaid is 409 conflict', () => {
    const state = sc()
      .given(historyOf('paid', 'boleto_live'))
      .when({ kind: 'refund', refundStatus: 'succeeded' })
      .thenEmits([refunded]);
    assert.equal(state.status === 'refunded' && state.refundStatus, 'succeeded');
    sc()
      .given(historyOf('refunded', 'pix_live'))
      .when({ kind: 'refund', refundStatus: 'succeeded' })
      .thenEmits([]);
    sc()
      .given(historyOf('pending', 'pix_live'))
      .when({ kind: 'refund', refundStatus: 'succeeded' })
      .thenFails('conflict');
  });

  test('due date of an open boleto: within today..+365 (Sao Paulo); the same date is a no-op; Pix is 409', () => {
    const given = historyOf('pending', 'boleto_live');
    const state = sc()
      .given(given)
      .when({ kind: 'change_due_date', dueDate: '2026-03-20', expiresAt: null })
      .thenEmits([
        {
          type: 'Transaction.DueDateChanged',
          data: {
            transaction_id: ID,
            boleto_due_date: '2026-03-20',
            previous_due_date: '2026-03-10',
            expires_at: null,
          },
        },
      ]);
    assert.equal(state.status, 'pending');
    sc().given(given).when({ kind: 'change_due_date', dueDate: '2026-03-10', expiresAt: null }).thenEmits([]);
    for (const dueDate of ['2026-02-28', '2027-03-02', '2026-02-30', '20260320']) {
      sc()
        .given(given)
        .when({ kind: 'change_due_date', dueDate, expiresAt: null })
        .thenFails('validation_error');
    }
    // 2026-03-01 00:30 in Sao Paulo is still 2026-02-28 there... and 02:59Z is still 2026-02-28 in Sao Paulo.
    sc()
      .given(given)
      .when(
        { kind: 'change_due_date', dueDate: '2026-02-28', expiresAt: null },
        { now: new Date('2026-03-01T02:59:00Z') },
      )
      .thenEmits([
        {
          type: 'Transaction.DueDateChanged',
          data: {
            transaction_id: ID,
            boleto_due_date: '2026-02-28',
            previous_due_date: '2026-03-10',
            expires_at: null,
          },
        },
      ]);
    sc()
      .given(historyOf('pending', 'pix_live'))
      .when({ kind: 'change_due_date', dueDate: '2026-03-20', expiresAt: null })
      .thenFails('conflict');
  });
});

describe('transaction decider: refund and due-date attempts the provider did not confirm (SPEC 4.8, issue 13)', () => {
  const diagnostics = { provider_error_code: null, provider_error_message: null, provider_http_status: 503 };

  test('an uncertain refund keeps the charge paid with refund.status pending; once is enough; confirmed later', () => {
    const given = historyOf('paid', 'pix_live');
    const pending = sc()
      .given(given)
      .when({ kind: 'refund_unconfirmed', diagnostics })
      .thenEmits([{ type: 'Transaction.RefundUnconfirmed', data: { transaction_id: ID, ...diagnostics } }]);
    assert.equal(pending.status === 'paid' && pending.refundStatus, 'pending');
    const uncertain: TransactionEvent = {
      type: 'Transaction.RefundUnconfirmed',
      data: { transaction_id: ID, ...diagnostics },
    };
    sc()
      .given([...given, uncertain])
      .when({ kind: 'refund_unconfirmed', diagnostics })
      .thenEmits([]);
    const done = sc()
      .given([...given, uncertain])
      .when({ kind: 'refund', refundStatus: 'succeeded' })
      .thenEmits([refunded]);
    assert.equal(done.status === 'refunded' && done.refundStatus, 'succeeded');
    // The diagnostics of the attempt stay in its event; the charge's own are not overwritten.
    assert.equal(pending.status === 'paid' && pending.diagnostics.provider_http_status, null);
  });

  test('a refused refund keeps the charge paid with refund.status failed; a refunded charge ignores it', () => {
    const state = sc()
      .given(historyOf('paid', 'boleto_live'))
      .when({ kind: 'refund_refused', diagnostics })
      .thenEmits([{ type: 'Transaction.RefundRefused', data: { transaction_id: ID, ...diagnostics } }]);
    assert.equal(state.status === 'paid' && state.refundStatus, 'failed');
    sc().given(historyOf('refunded', 'pix_live')).when({ kind: 'refund_refused', diagnostics }).thenEmits([]);
    sc()
      .given(historyOf('pending', 'pix_live'))
      .when({ kind: 'refund_refused', diagnostics })
      .thenFails('conflict');
  });

  test('an uncertain due-date change is pending without moving the date; the confirmed change clears it', () => {
    const given = historyOf('pending', 'boleto_live');
    const unconfirmed: TransactionEvent = {
      type: 'Transaction.DueDateChangeUnconfirmed',
      data: { transaction_id: ID, boleto_due_date: '2026-03-20', ...diagnostics },
    };
    const pending = sc()
      .given(given)
      .when({ kind: 'due_date_unconfirmed', dueDate: '2026-03-20', diagnostics })
      .thenEmits([unconfirmed]);
    assert.equal(pending.status === 'pending' && pending.boletoDueDate, '2026-03-10');
    assert.equal(pending.status === 'pending' && pending.pendingDueDate, '2026-03-20');
    sc()
      .given([...given, unconfirmed])
      .when({ kind: 'due_date_unconfirmed', dueDate: '2026-03-20', diagnostics })
      .thenEmits([]);
    const changed = sc()
      .given([...given, unconfirmed])
      .when({
        kind: 'change_due_date',
        dueDate: '2026-03-20',
        expiresAt: null,
        artifacts: {
          boleto_digitable_line: '3'.repeat(47),
          boleto_barcode: '4'.repeat(44),
          boleto_pix_copy_paste: null,
          boleto_pix_expires_at: null,
        },
      })
      .thenEmits([
        {
          type: 'Transaction.DueDateChanged',
          data: {
            transaction_id: ID,
            boleto_due_date: '2026-03-20',
            previous_due_date: '2026-03-10',
            expires_at: null,
            boleto_digitable_line: '3'.repeat(47),
            boleto_barcode: '4'.repeat(44),
            boleto_pix_copy_paste: null,
            boleto_pix_expires_at: null,
          },
        },
      ]);
    assert.equal(changed.status === 'pending' && changed.pendingDueDate, null);
    assert.equal(changed.status === 'pending' && changed.artifacts.boleto_digitable_line, '3'.repeat(47));
    const refused = sc()
      .given([...given, unconfirmed])
      .when({ kind: 'due_date_refused', dueDate: '2026-03-20', diagnostics })
      .thenEmits([
        {
          type: 'Transaction.DueDateChangeRefused',
          data: { transaction_id: ID, boleto_due_date: '2026-03-20', ...diagnostics },
        },
      ]);
    assert.equal(refused.status === 'pending' && refused.pendingDueDate, null);
    assert.equal(refused.status === 'pending' && refused.boletoDueDate, '2026-03-10');
    sc()
      .given(historyOf('pending', 'pix_live'))
      .when({ kind: 'due_date_unconfirmed', dueDate: '2026-03-20', diagnostics })
      .thenFails('conflict');
  });
});

/** Refusals an `emits` cell may still answer with, by command kind (the footnotes of the table). */
const GUARD_REFUSALS: Partial<Record<TransactionCommand['kind'], readonly ErrorCode[]>> = {
  reserve: ['validation_error', 'provider_pix_sandbox_unsupported', 'provider_card_sandbox_unsupported'],
  // Only a card is captured at creation (SPEC 4.9).
  record_captured: ['conflict'],
  simulate_paid: ['simulation_not_allowed'],
  simulate_expired: ['simulation_not_allowed'],
  refresh_pending: ['reconciliation_required', 'provider_refresh_failed'],
  refresh_processing: ['reconciliation_required', 'provider_refresh_failed'],
  refresh_paid: ['reconciliation_required', 'provider_refresh_failed'],
  refresh_expired: ['reconciliation_required', 'provider_refresh_failed'],
  // (x) only a debit fails after issue.
  refresh_failed: ['reconciliation_required', 'provider_refresh_failed'],
  refresh_refunded: ['reconciliation_required', 'provider_refresh_failed'],
  change_due_date: ['conflict', 'validation_error'],
  refresh_boleto_pix: ['provider_refresh_failed'],
  refresh_reference_found: ['provider_refresh_failed'],
  refresh_duplicate_payment: ['provider_refresh_failed'],
  due_date_unconfirmed: ['conflict', 'validation_error'],
  due_date_refused: ['conflict', 'validation_error'],
  request_refund: ['refund_in_progress'],
  complete_refund: ['conflict', 'validation_error'],
  cancel_refund: ['conflict', 'validation_error'],
  view_refund_bank_account: ['conflict'],
  request_due_date_change: ['conflict', 'validation_error', 'change_in_progress'],
};
/** Kinds whose `emits` cell may decide nothing: (t) before the timeout, (e) before the deadline, (d) same date. */
const CONDITIONAL_NOOPS: readonly TransactionCommand['kind'][] = [
  'mark_unknown',
  'refresh_expired',
  'change_due_date',
  'refresh_boleto_pix',
  'refresh_reference_found',
  'refresh_duplicate_payment',
  'claim_duplicate_refund',
  'record_duplicate_refund',
  'record_duplicate_refund_refused',
  'refund_unconfirmed',
  'due_date_unconfirmed',
  'request_due_date_change',
  'record_payout_sent',
  'record_payout_returned',
  'hand_refund_to_operator',
];

/** One step checked against the SPEC 3.1 transcription and the footnotes. Returns the events to append. */
function stepTransaction(
  history: readonly TransactionEvent[],
  command: TransactionCommand,
  at: DecideContext,
) {
  const before = fold(transaction, history);
  const move = specCell(before.status, command.kind);
  const decision = transaction.decide(command, before, at);
  if (before.status !== 'none' && isRefresh(command) && command.observedStatus !== before.status) {
    assert.deepEqual(decision, [], 'a stale refresh result changes nothing');
    return [];
  }
  if ('refuse' in move) {
    assert.ok(
      decision instanceof DomainError && decision.code === move.refuse,
      `${before.status} x ${command.kind}`,
    );
    return [];
  }
  if ('noop' in move) {
    assert.deepEqual(decision, []);
    return [];
  }
  if ('repeat' in move) {
    if (sameReservation(before, command)) assert.deepEqual(decision, []);
    else assert.ok(decision instanceof DomainError && decision.code === 'idempotency_conflict');
    return [];
  }
  if (decision instanceof DomainError) {
    assert.ok(
      GUARD_REFUSALS[command.kind]?.includes(decision.code as ErrorCode),
      `${command.kind}: ${decision.code}`,
    );
    return [];
  }
  if (decision.length === 0) {
    assert.ok(CONDITIONAL_NOOPS.includes(command.kind), `${before.status} x ${command.kind} decided nothing`);
    return [];
  }
  assert.deepEqual(
    decision.map((e) => e.type),
    [move.emits],
  );
  assert.equal(fold(transaction, [...history, ...decision]).status, move.to);
  for (const e of decision) registry.encode(e);
  return decision;
}

describe('transaction decider: one provider operation per intent (SPEC 3.1 reserve then call, 4.8; issue 22)', () => {
  const diagnostics = { provider_error_code: null, provider_error_message: null, provider_http_status: 503 };
  const requested = (at: Date = T0): TransactionEvent => ({
    type: 'Transaction.RefundRequested',
    data: { transaction_id: ID, requested_at: at.toISOString() },
  });
  const dueRequested = (date: string, at: Date = T0): TransactionEvent => ({
    type: 'Transaction.DueDateChangeRequested',
    data: { transaction_id: ID, boleto_due_date: date, requested_at: at.toISOString() },
  });

  test('a paid charge reserves its refund: refund.status pending, in flight; a second reservation is 409 refund_in_progress', () => {
    const given = historyOf('paid', 'pix_live');
    const state = sc().given(given).when({ kind: 'request_refund' }).thenEmits([requested()]);
    assert.ok(state.status === 'paid' && state.refundStatus === 'pending' && state.refundInFlight);
    sc()
      .given([...given, requested()])
      .when({ kind: 'request_refund' })
      .thenFails('refund_in_progress');
    // Left uncertain, it is still in progress: the reconciler reads, nothing is reserved again.
    const uncertain: TransactionEvent = {
      type: 'Transaction.RefundUnconfirmed',
      data: { transaction_id: ID, ...diagnostics },
    };
    sc()
      .given([...given, requested(), uncertain])
      .when({ kind: 'request_refund' })
      .thenFails('refund_in_progress');
  });

  test('the answer closes the reservation: refunded is final; refused frees a new request; refunded again is a no-op', () => {
    const given = [...historyOf('paid', 'pix_live'), requested()];
    const refused: TransactionEvent = {
      type: 'Transaction.RefundRefused',
      data: { transaction_id: ID, ...diagnostics },
    };
    const after = sc().given(given).when({ kind: 'refund_refused', diagnostics }).thenEmits([refused]);
    assert.ok(after.status === 'paid' && after.refundStatus === 'failed' && !after.refundInFlight);
    sc()
      .given([...given, refused])
      .when({ kind: 'request_refund' }, later(5))
      .thenEmits([requested(later(5).now)]);
    sc().given(historyOf('refunded', 'pix_live')).when({ kind: 'request_refund' }).thenEmits([]);
    for (const status of ['pending', 'expired', 'failed', 'unknown'] as const) {
      sc().given(historyOf(status, 'pix_live')).when({ kind: 'request_refund' }).thenFails('conflict');
    }
  });

  test('the reconciler records a reservation with no answer as uncertain only once it outlived any call', () => {
    const given = [...historyOf('paid', 'pix_live'), requested()];
    const stale = { kind: 'refund_unconfirmed', diagnostics, staleAfterSeconds: 120 } as const;
    sc().given(given).when(stale, later(119)).thenEmits([]);
    const state = sc()
      .given(given)
      .when(stale, later(120))
      .thenEmits([{ type: 'Transaction.RefundUnconfirmed', data: { transaction_id: ID, ...diagnostics } }]);
    assert.ok(state.status === 'paid' && state.refundStatus === 'pending' && !state.refundInFlight);
    // Nothing in flight: nothing for the reconciler to record.
    sc().given(historyOf('paid', 'pix_live')).when(stale, later(500)).thenEmits([]);
    // The call's own uncertain answer is recorded at once.
    sc()
      .given(given)
      .when({ kind: 'refund_unconfirmed', diagnostics })
      .thenEmits([{ type: 'Transaction.RefundUnconfirmed', data: { transaction_id: ID, ...diagnostics } }]);
  });

  test('a due-date change is reserved once: another date or the same one while it is open is 409 change_in_progress', () => {
    const given = historyOf('pending', 'boleto_live');
    const state = sc()
      .given(given)
      .when({ kind: 'request_due_date_change', dueDate: '2026-03-20' })
      .thenEmits([dueRequested('2026-03-20')]);
    assert.ok(state.status === 'pending' && state.pendingDueDate === '2026-03-20' && state.dueDateInFlight);
    for (const dueDate of ['2026-03-20', '2026-03-25']) {
      sc()
        .given([...given, dueRequested('2026-03-20')])
        .when({ kind: 'request_due_date_change', dueDate })
        .thenFails('change_in_progress');
    }
    // The current date with nothing open: nothing to reserve; a date out of the window: 422.
    sc().given(given).when({ kind: 'request_due_date_change', dueDate: '2026-03-10' }).thenEmits([]);
    sc()
      .given(given)
      .when({ kind: 'request_due_date_change', dueDate: '2027-03-02' })
      .thenFails('validation_error');
    sc()
      .given(historyOf('pending', 'pix_live'))
      .when({ kind: 'request_due_date_change', dueDate: '2026-03-20' })
      .thenFails('conflict');
    // The change recorded closes it; a new date may then be reserved.
    const changed: TransactionEvent = {
      type: 'Transaction.DueDateChanged',
      data: {
        transaction_id: ID,
        boleto_due_date: '2026-03-20',
        previous_due_date: '2026-03-10',
        expires_at: null,
      },
    };
    const closed = fold(transaction, [...given, dueRequested('2026-03-20'), changed]);
    assert.ok(closed.status === 'pending' && closed.pendingDueDate === null && !closed.dueDateInFlight);
    sc()
      .given([...given, dueRequested('2026-03-20'), changed])
      .when({ kind: 'request_due_date_change', dueDate: '2026-03-25' })
      .thenEmits([dueRequested('2026-03-25')]);
  });

  test('property: of any interleaving of reservations and answers, at most one reservation is ever open', () => {
    const steps = fc.array(
      fc.constantFrom<TransactionCommand>(
        { kind: 'request_refund' },
        { kind: 'refund', refundStatus: 'succeeded' },
        { kind: 'refund_refused', diagnostics },
        { kind: 'refund_unconfirmed', diagnostics },
        { kind: 'refund_unconfirmed', diagnostics, staleAfterSeconds: 60 },
      ),
      { maxLength: 30 },
    );
    fc.assert(
      fc.property(steps, fc.array(fc.integer({ min: 0, max: 120 }), { maxLength: 30 }), (commands, gaps) => {
        let history: readonly TransactionEvent[] = historyOf('paid', 'pix_live');
        let clock = T0.getTime();
        let open = 0;
        commands.forEach((command, i) => {
          clock += (gaps[i] ?? 0) * 1000;
          const decision = transaction.decide(command, fold(transaction, history), { now: new Date(clock) });
          if (decision instanceof DomainError) {
            if (command.kind === 'request_refund') {
              assert.ok(['refund_in_progress', 'conflict'].includes(decision.code), decision.code);
            }
            return;
          }
          for (const e of decision) {
            if (e.type === 'Transaction.RefundRequested') open += 1;
            if (['Transaction.Refunded', 'Transaction.RefundRefused'].includes(e.type)) open = 0;
          }
          assert.ok(open <= 1, 'two refunds reserved without an answer between them');
          history = [...history, ...decision];
        });
      }),
    );
  });
});

describe('transaction state table (property, SPEC 3.1)', () => {
  test('random command sequences never leave the table; paid only to refunded; finals never reopen', () => {
    fc.assert(
      fc.property(chargeKind, fc.array(randomStep, { maxLength: 40 }), (charge, steps) => {
        const history: TransactionEvent[] = [];
        let clock = T0.getTime();
        for (const step of steps) {
          clock += step.advanceSeconds * 1000;
          const before = fold(transaction, history).status;
          const command = commandOfStep(step, ID, charge, before);
          const events = stepTransaction(history, command, { now: new Date(clock) });
          history.push(...events);
          const after = fold(transaction, history).status;
          if (before === 'paid') assert.ok(after === 'paid' || after === 'refunded', `paid -> ${after}`);
          if (before === 'expired' || before === 'failed' || before === 'refunded') {
            assert.equal(events.length, 0, `${before} never reopens`);
          }
          if (isRefresh(command) && before !== 'none' && command.observedStatus !== before) {
            assert.equal(events.length, 0);
          }
        }
        // Reserved once, first; after Paid only refund attempts (SPEC 4.8), Refunded and a double payment's
        // Pix refund.
        assert.ok(history.slice(1).every((e) => e.type !== 'Transaction.Reserved'));
        const paidAt = history.findIndex((e) => e.type === 'Transaction.Paid');
        const afterPaid = [
          'Transaction.Refunded',
          'Transaction.DuplicatePaymentFound',
          'Transaction.DuplicateRefundAttempted',
          'Transaction.DuplicateRefunded',
          'Transaction.DuplicateRefundRefused',
          'Transaction.RefundUnconfirmed',
          'Transaction.RefundRefused',
        ];
        if (paidAt >= 0) assert.ok(history.slice(paidAt + 1).every((e) => afterPaid.includes(e.type)));
        // SPEC 2.2: the Pix of a double payment is refunded at most once, and only after a double payment.
        const refunds = history.filter((e) => e.type === 'Transaction.DuplicateRefunded');
        assert.ok(refunds.length <= 1);
        const paidEvent = history[paidAt];
        const doublePaid =
          (paidEvent?.type === 'Transaction.Paid' && paidEvent.data.duplicate_payment_at !== null) ||
          history.some((e) => e.type === 'Transaction.DuplicatePaymentFound');
        if (refunds.length > 0 || attemptsOf(history) > 0) assert.ok(doublePaid);
        assert.ok(history.filter((e) => e.type === 'Transaction.DuplicatePaymentFound').length <= 1);
        const attempts = history.filter((e) => e.type === 'Transaction.DuplicateRefundAttempted');
        attempts.forEach((e, i) => {
          assert.ok(e.type === 'Transaction.DuplicateRefundAttempted' && e.data.attempt === i + 1);
        });
      }),
      { numRuns: 500 },
    );
  });

  test('two refreshes racing from the same read: the later append never overwrites the newer confirmation', () => {
    const refreshKinds = [
      'refresh_pending',
      'refresh_processing',
      'refresh_paid',
      'refresh_expired',
      'refresh_refunded',
    ] as const;
    fc.assert(
      fc.property(
        fc.constantFrom<ChargeKind>('pix_live', 'boleto_live'),
        fc.constantFrom<TransactionStatus>('pending', 'unknown', 'paid'),
        fc.constantFrom(...refreshKinds),
        fc.constantFrom(...refreshKinds),
        (charge, start, first, second) => {
          const history = historyOf(start, charge);
          const read = fold(transaction, history).status;
          assert.notEqual(read, 'none');
          if (read === 'none') return;
          const a = commandOf(first, { transactionId: ID, chargeKind: charge, observed: read });
          const b = commandOf(second, { transactionId: ID, chargeKind: charge, observed: read });
          const da = transaction.decide(a, fold(transaction, history), later(60));
          const applied = Array.isArray(da) ? [...history, ...da] : history;
          const confirmed = fold(transaction, applied).status;
          // b re-decides after a's append (version conflict), still carrying what it read.
          const db = transaction.decide(b, fold(transaction, applied), later(61));
          if (confirmed !== read) assert.deepEqual(db, [], 'the stale result is dropped');
        },
      ),
    );
  });

  test('stepByTable: simulated charges under creation, outcome, simulate and refund commands', () => {
    const command: fc.Arbitrary<TransactionCommand> = fc.oneof(
      fc.constant<TransactionCommand>(reserveCommand(ID, 'pix_simulated')),
      fc.constant<TransactionCommand>({ kind: 'record_issued', artifacts: pixArtifacts(null) }),
      fc.constant<TransactionCommand>(
        commandOf('record_refused', {
          transactionId: ID,
          chargeKind: 'pix_simulated',
          observed: 'processing',
        }),
      ),
      fc.constant<TransactionCommand>({
        kind: 'record_uncertain',
        providerReference: null,
        diagnostics: noDiagnostics,
      }),
      fc.constant<TransactionCommand>({ kind: 'simulate_paid' }),
      fc.constant<TransactionCommand>({ kind: 'simulate_expired' }),
      fc.constant<TransactionCommand>({ kind: 'refund', refundStatus: 'succeeded' }),
    );
    fc.assert(
      fc.property(fc.array(command, { maxLength: 30 }), (commands) => {
        const history: TransactionEvent[] = [];
        for (const c of commands) {
          history.push(
            ...stepByTable(transaction, SPEC_3_1, history, c, ctx, {
              creation: 'reserve',
              sameFacts: (state, cmd) => sameReservation(state, cmd),
            }),
          );
        }
      }),
    );
  });
});
