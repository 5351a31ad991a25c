import type { TransitionTable } from '../transition-table.ts';
import type { TransactionCommandKind } from './commands.ts';
import type { TransactionEventType } from './events.ts';
import type { TransactionStatus } from './vocabulary.ts';

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
 *  refresh_failed (a debit rejected or cancelled after issue): pending -> Refused (x); unknown -> Refused
 *  (r)(x); failed `=`; none 404; processing 409 conflict (a debit still being scheduled has no external id
 *  to read: reconcile first); paid, expired, refunded 409 psc.
 *  record_captured (a card authorized and captured at creation, SPEC 4.9): as record_issued, but Captured ->
 *  paid (processing and unknown rows); none 404; every other row 409 conflict.
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
 *  (x) only a kind that fails after issue (a Pix Automatic debit); any other charge is 502
 *      provider_refresh_failed.
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
type Row = Table['none'];

const notFound = { refuse: 'not_found' } as const;
const conflict = { refuse: 'conflict' } as const;
const psc = { refuse: 'provider_status_conflict' } as const;
const simNA = { refuse: 'simulation_not_allowed' } as const;
const noop = { noop: true } as const;
const repeat = { repeat: 'same_facts_or_conflict' } as const;

/**
 * A charge that exists but where nothing applies: a repeated reserve, refresh results that would regress or
 * reopen a state, and every other command refused. Each row below names only the cells where its state
 * differs from this one.
 */
const settled = {
  reserve: repeat,
  record_issued: conflict,
  record_captured: conflict,
  record_refused: conflict,
  record_uncertain: conflict,
  mark_unknown: noop,
  simulate_paid: simNA,
  simulate_expired: simNA,
  refresh_pending: psc,
  refresh_processing: psc,
  refresh_paid: psc,
  refresh_expired: psc,
  refresh_failed: psc,
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
  record_payout_sent: conflict,
  record_payout_returned: conflict,
  hand_refund_to_operator: conflict,
  complete_refund: conflict,
  cancel_refund: conflict,
  view_refund_bank_account: conflict,
} as const satisfies Row;

/** A row: the cells of `settled`, in its column order, with the ones given replaced. */
function row(cells: Partial<Row>): Row {
  return { ...settled, ...cells };
}

/** The answer to the creation call, recorded while it is open (`processing`) or after it was lost (`unknown`). */
const RECORD_ANSWER = {
  record_issued: { emits: 'Transaction.Issued', to: 'pending' },
  record_captured: { emits: 'Transaction.Captured', to: 'paid' },
  record_refused: { emits: 'Transaction.Refused', to: 'failed' },
} as const;

/**
 * What a read of the provider moves an unsettled charge to (pending, and processing or unknown once it has an
 * external id); rows whose state a read cannot leave that way replace the cell.
 */
const PROVIDER_READ = {
  refresh_processing: { emits: 'Transaction.PaymentProcessing', to: 'processing' },
  refresh_paid: { emits: 'Transaction.Paid', to: 'paid' },
  refresh_expired: { emits: 'Transaction.Expired', to: 'expired' },
  refresh_failed: { emits: 'Transaction.Refused', to: 'failed' },
} as const;

/** A due-date change of an open boleto (d)(q)(w): its request, its reservation and its answers; it stays pending. */
const DUE_DATE_CHANGE = {
  change_due_date: { emits: 'Transaction.DueDateChanged', to: 'pending' },
  request_due_date_change: { emits: 'Transaction.DueDateChangeRequested', to: 'pending' },
  due_date_unconfirmed: { emits: 'Transaction.DueDateChangeUnconfirmed', to: 'pending' },
  due_date_refused: { emits: 'Transaction.DueDateChangeRefused', to: 'pending' },
} as const;

/** A refund's late answers and operations on a refunded charge: it is already where they would take it. */
const REFUNDED = {
  refund: noop,
  claim_duplicate_refund: noop,
  record_duplicate_refund: noop,
  record_duplicate_refund_refused: noop,
  refund_unconfirmed: noop,
  refund_refused: noop,
  request_refund: noop,
  record_payout_sent: noop,
  record_payout_returned: noop,
  hand_refund_to_operator: noop,
} as const;

/** Before the first event only a reserve applies: every other command names a charge that does not exist. */
const ABSENT = Object.fromEntries(Object.keys(settled).map((kind) => [kind, notFound])) as Row;

export const transactionTransitions: Table = {
  none: {
    ...ABSENT,
    reserve: { emits: 'Transaction.Reserved', to: 'processing' },
  },
  processing: row({
    ...RECORD_ANSWER,
    ...PROVIDER_READ,
    record_uncertain: { emits: 'Transaction.Unconfirmed', to: 'unknown' },
    mark_unknown: { emits: 'Transaction.Unconfirmed', to: 'unknown' },
    refresh_pending: { emits: 'Transaction.AwaitingPayment', to: 'pending' },
    refresh_processing: noop,
    refresh_failed: conflict,
  }),
  pending: row({
    ...PROVIDER_READ,
    simulate_paid: { emits: 'Transaction.Paid', to: 'paid' },
    simulate_expired: { emits: 'Transaction.Expired', to: 'expired' },
    refresh_pending: noop,
    ...DUE_DATE_CHANGE,
    refresh_boleto_pix: { emits: 'Transaction.BoletoPixIssued', to: 'pending' },
  }),
  paid: row({
    refresh_paid: noop,
    refresh_refunded: { emits: 'Transaction.Refunded', to: 'refunded' },
    refund: { emits: 'Transaction.Refunded', to: 'refunded' },
    refresh_duplicate_payment: { emits: 'Transaction.DuplicatePaymentFound', to: 'paid' },
    claim_duplicate_refund: { emits: 'Transaction.DuplicateRefundAttempted', to: 'paid' },
    record_duplicate_refund: { emits: 'Transaction.DuplicateRefunded', to: 'paid' },
    record_duplicate_refund_refused: { emits: 'Transaction.DuplicateRefundRefused', to: 'paid' },
    refund_unconfirmed: { emits: 'Transaction.RefundUnconfirmed', to: 'paid' },
    refund_refused: { emits: 'Transaction.RefundRefused', to: 'paid' },
    request_refund: { emits: 'Transaction.RefundRequested', to: 'paid' },
    record_payout_sent: { emits: 'Transaction.RefundPayoutSent', to: 'paid' },
    record_payout_returned: { emits: 'Transaction.RefundPayoutReturned', to: 'paid' },
    hand_refund_to_operator: { emits: 'Transaction.RefundHandedToOperator', to: 'paid' },
    complete_refund: { emits: 'Transaction.Refunded', to: 'refunded' },
    cancel_refund: { emits: 'Transaction.RefundCancelled', to: 'paid' },
    view_refund_bank_account: { emits: 'Transaction.RefundBankAccountViewed', to: 'paid' },
  }),
  expired: row({ refresh_expired: noop }),
  failed: row({ refresh_failed: noop }),
  unknown: row({
    ...RECORD_ANSWER,
    ...PROVIDER_READ,
    record_uncertain: noop,
    refresh_pending: { emits: 'Transaction.Issued', to: 'pending' },
    refresh_reference_found: { emits: 'Transaction.ProviderReferenceFound', to: 'unknown' },
  }),
  refunded: row({ refresh_refunded: noop, ...REFUNDED }),
};
