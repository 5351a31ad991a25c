import { z } from 'zod';
import { defineEvent } from '../events/event-registry.ts';
import { type Decider, DomainError, type DomainEvent } from './decider.ts';
import type { ErrorCode } from './errors.ts';
import { addressFields } from './transaction/events.ts';

/**
 * A hosted checkout (SPEC 2.7, 3.5, 4.9; stream `checkout-<id>`; docs/decisions.md "Hosted checkout (issue
 * 25)"): a signed link where the payer picks one of the offered methods. Each choice creates an ordinary
 * charge (a transaction); the checkout only links them (`Checkout.PaymentStarted`) and follows their
 * outcomes, which the feature's follower reports as commands (src/commands/checkouts/follow.ts).
 */

export const CHECKOUT_METHODS = ['pix', 'boleto', 'credit_card'] as const;
export type CheckoutMethod = (typeof CHECKOUT_METHODS)[number];
export const CHECKOUT_STATUSES = ['open', 'processing', 'completed', 'failed', 'expired'] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

const checkoutId = z.string().startsWith('chk_');
const transactionId = z.string().startsWith('txn_');
const method = z.enum(CHECKOUT_METHODS);

const address = z.strictObject(addressFields);
/** The payer as the merchant sent it (SPEC 4.1 shapes, original spelling): every charge of the link uses it. */
export const checkoutCustomer = z.strictObject({
  name: z.string().optional(),
  document: z.string().optional(),
  email: z.string().optional(),
  phone: z.string().optional(),
  address: address.optional(),
});
export type CheckoutCustomer = z.infer<typeof checkoutCustomer>;

/** How the boleto a payer picks is issued (SPEC 4.2 options; the due date counts from the choice). */
export const checkoutBoletoOptions = z.strictObject({
  due_in_days: z.number().int().min(0).max(365),
  instruction: z.string().optional(),
  cancel_after_due: z.boolean().optional(),
  days_before_cancel: z.number().int().min(0).max(120).optional(),
});
export type CheckoutBoletoOptions = z.infer<typeof checkoutBoletoOptions>;

const createdData = z.strictObject({
  checkout_id: checkoutId,
  tenant_id: z.string().startsWith('ten_'),
  livemode: z.boolean(),
  methods: z.array(method).min(1),
  amount: z.number().int().min(1).max(100_000_000),
  reference: z.string(),
  description: z.string(),
  customer: checkoutCustomer.nullable(),
  expires_at: z.iso.datetime(),
  boleto: checkoutBoletoOptions.nullable(),
  callback_url: z.string().nullable(),
  cost_center_id: z.string().nullable(),
  /**
   * A subscription's Pix cycle link (SPEC 4.10): its charge takes the subscription's cost center at the
   * moment the payer chooses to pay. Absent on every other checkout (and on those created before).
   */
  subscription_id: z.string().startsWith('sub_').optional(),
});
export type CheckoutCreatedData = z.infer<typeof createdData>;

const startedData = z.strictObject({ checkout_id: checkoutId, transaction_id: transactionId, method });
const attemptFailedData = z.strictObject({
  checkout_id: checkoutId,
  transaction_id: transactionId,
  /** The charge's final status: refused at issuance or declined (`failed`), or not paid in time (`expired`). */
  outcome: z.enum(['failed', 'expired']),
});
const paidData = z.strictObject({ checkout_id: checkoutId, transaction_id: transactionId });
const endedData = z.strictObject({ checkout_id: checkoutId });

export const checkoutEvents = [
  defineEvent({
    type: 'Checkout.Created',
    audit: { action: 'checkout.created', when: 'a hosted checkout link was created' },
    schema: createdData,
  }),
  defineEvent({
    type: 'Checkout.PaymentStarted',
    audit: { action: 'checkout.payment_started', when: 'the payer chose a method and a charge was created' },
    schema: startedData,
  }),
  defineEvent({
    type: 'Checkout.PaymentFailed',
    audit: {
      action: 'checkout.payment_failed',
      when: "a checkout's charge ended unpaid (failed or expired)",
    },
    schema: attemptFailedData,
  }),
  defineEvent({
    type: 'Checkout.Completed',
    audit: { action: 'checkout.completed', when: "a checkout's charge was paid" },
    schema: paidData,
  }),
  defineEvent({
    type: 'Checkout.LatePaymentRecorded',
    audit: {
      action: 'checkout.late_payment_recorded',
      when: 'a charge of a checkout already completed, expired or failed was paid (the merchant refunds it)',
    },
    schema: paidData,
  }),
  defineEvent({
    type: 'Checkout.Expired',
    audit: { action: 'checkout.expired', when: 'a checkout reached its deadline unpaid' },
    schema: endedData,
  }),
  defineEvent({
    type: 'Checkout.Failed',
    audit: { action: 'checkout.failed', when: 'a checkout reached its deadline after a failed payment' },
    schema: endedData,
  }),
];

export type CheckoutEvent =
  | DomainEvent<'Checkout.Created', CheckoutCreatedData>
  | DomainEvent<'Checkout.PaymentStarted', z.infer<typeof startedData>>
  | DomainEvent<'Checkout.PaymentFailed', z.infer<typeof attemptFailedData>>
  | DomainEvent<'Checkout.Completed', z.infer<typeof paidData>>
  | DomainEvent<'Checkout.LatePaymentRecorded', z.infer<typeof paidData>>
  | DomainEvent<'Checkout.Expired', z.infer<typeof endedData>>
  | DomainEvent<'Checkout.Failed', z.infer<typeof endedData>>;
export type CheckoutEventType = CheckoutEvent['type'];

export type AttemptOutcome = 'pending' | 'paid' | 'failed' | 'expired';
export interface CheckoutAttempt {
  readonly transactionId: string;
  readonly method: CheckoutMethod;
  readonly outcome: AttemptOutcome;
}

export type CheckoutState =
  | { readonly status: 'none' }
  | {
      readonly status: CheckoutStatus;
      readonly created: CheckoutCreatedData;
      /** The charges the payer made, oldest first. */
      readonly attempts: readonly CheckoutAttempt[];
      readonly paidTransactionId: string | null;
      /** Charges paid after the checkout was completed, expired or failed: the merchant refunds them. */
      readonly latePayments: readonly string[];
    };

export type CheckoutCommand =
  | { readonly kind: 'create'; readonly data: CheckoutCreatedData }
  | { readonly kind: 'start'; readonly transactionId: string; readonly method: CheckoutMethod }
  | {
      readonly kind: 'attempt_failed';
      readonly transactionId: string;
      readonly outcome: 'failed' | 'expired';
    }
  | { readonly kind: 'attempt_paid'; readonly transactionId: string }
  | { readonly kind: 'expire' };
export type CheckoutCommandKind = CheckoutCommand['kind'];

/**
 * One cell of the checkout's table. `to` lists every state the move may lead to; where it names two, the
 * cell's rule picks one (written beside the table), and the property test checks the result is listed.
 */
export type CheckoutMove =
  | { readonly emits: readonly CheckoutEventType[]; readonly to: readonly CheckoutStatus[] }
  | { readonly noop: true }
  | { readonly refuse: ErrorCode }
  | { readonly repeat: 'same_facts_or_conflict' };

/**
 * State table (SPEC 3.5 leaves the moves to us; docs/decisions.md "Hosted checkout (issue 25)").
 * `=` no-op. Started = PaymentStarted, AttFailed = PaymentFailed, Late = LatePaymentRecorded.
 *
 *  state     |create    |start              |attempt_failed          |attempt_paid          |expire
 *  ----------+----------+-------------------+------------------------+----------------------+------------------------
 *  none      |Created   |404 not_found      |404 not_found           |404 not_found         |404 not_found
 *            | -> open  |                   |                        |                      |
 *  open      |repeat    |Started -> proc    |=                       |Completed -> completed|(d) Expired -> expired
 *            |          |                   |                        |                      |  or Failed -> failed
 *  processing|repeat    |Started -> proc    |(p) AttFailed -> open   |Completed -> completed|= (its charges decide)
 *            |          |                   |  or processing         |                      |
 *  completed |repeat    |(r) Started -> =   |=                       |(l) Late -> completed |=
 *  expired   |repeat    |(r) Started -> =   |=                       |(l) Late -> expired   |=
 *  failed    |repeat    |(r) Started -> =   |=                       |(l) Late -> failed    |=
 *
 * Rules of the cells:
 *  - start, attempt_*: a transaction already linked is a no-op for start (a double submit of the payer's form
 *    makes one charge, linked once); attempt_failed/attempt_paid of a transaction not linked is 404, and of
 *    one whose outcome is already that outcome is a no-op.
 *  - (p) processing = at least one charge still pending. The checkout goes back to `open` (the payer may pick
 *    another method, SPEC 2.7 "a declined card may be followed by another method") when none is left pending,
 *    else stays `processing`.
 *  - (d) only at or after `expires_at` (before: no-op). `failed` when the last charge the payer made failed
 *    (refused or declined), `expired` otherwise (no charge, or the last one expired unpaid). A `processing`
 *    checkout is not expired at the deadline: its charges were issued and may still be paid; once none is
 *    pending it is back in `open` and the next expire ends it.
 *  - (r) a charge created while the checkout ended (a payer racing the deadline or a payment) is still linked,
 *    so it is never lost; the page refuses new choices once the checkout is not open or processing.
 *  - (l) a second payment (or one after the deadline) is recorded in `late_payments` and reported, never
 *    lost; the paid transaction of a completed checkout is a no-op.
 *  - (c) carding cap: after CARD_DECLINE_CAP card charges ended `failed`, `credit_card` is no longer offered
 *    (`offeredMethods`): the page drops the card form and a card pick is `422 validation_error` (param
 *    `method`), as a method never offered, before any charge; the other methods stay. It is checked at the
 *    pick, not at `start`: `start` links a charge already sent to the provider, and refusing the link would
 *    not undo the charge, only lose it (rule (r)). Card picks in flight at once are not counted yet.
 */
export const checkoutTransitions: {
  readonly [state in CheckoutStatus | 'none']: { readonly [kind in CheckoutCommandKind]: CheckoutMove };
} = {
  none: {
    create: { emits: ['Checkout.Created'], to: ['open'] },
    start: { refuse: 'not_found' },
    attempt_failed: { refuse: 'not_found' },
    attempt_paid: { refuse: 'not_found' },
    expire: { refuse: 'not_found' },
  },
  open: {
    create: { repeat: 'same_facts_or_conflict' },
    start: { emits: ['Checkout.PaymentStarted'], to: ['processing'] },
    attempt_failed: { noop: true },
    attempt_paid: { emits: ['Checkout.Completed'], to: ['completed'] },
    expire: { emits: ['Checkout.Expired', 'Checkout.Failed'], to: ['expired', 'failed'] },
  },
  processing: {
    create: { repeat: 'same_facts_or_conflict' },
    start: { emits: ['Checkout.PaymentStarted'], to: ['processing'] },
    attempt_failed: { emits: ['Checkout.PaymentFailed'], to: ['open', 'processing'] },
    attempt_paid: { emits: ['Checkout.Completed'], to: ['completed'] },
    expire: { noop: true },
  },
  completed: {
    create: { repeat: 'same_facts_or_conflict' },
    start: { emits: ['Checkout.PaymentStarted'], to: ['completed'] },
    attempt_failed: { noop: true },
    attempt_paid: { emits: ['Checkout.LatePaymentRecorded'], to: ['completed'] },
    expire: { noop: true },
  },
  expired: {
    create: { repeat: 'same_facts_or_conflict' },
    start: { emits: ['Checkout.PaymentStarted'], to: ['expired'] },
    attempt_failed: { noop: true },
    attempt_paid: { emits: ['Checkout.LatePaymentRecorded'], to: ['expired'] },
    expire: { noop: true },
  },
  failed: {
    create: { repeat: 'same_facts_or_conflict' },
    start: { emits: ['Checkout.PaymentStarted'], to: ['failed'] },
    attempt_failed: { noop: true },
    attempt_paid: { emits: ['Checkout.LatePaymentRecorded'], to: ['failed'] },
    expire: { noop: true },
  },
};

/**
 * Declined card charges one checkout takes before it stops offering the card (docs/decisions.md "Hosted
 * checkout (issue 25)", carding cap): the page is public, so without a cap one link tests stolen cards at
 * the page limit's pace. Five leaves a payer room for typos and a second card.
 */
export const CARD_DECLINE_CAP = 5;

/**
 * The methods a payer may still pick (rule (c) of the table): the offered ones, less `credit_card` once
 * CARD_DECLINE_CAP of its card charges ended `failed`. The page shows these forms and a pick of any other
 * method is refused before a charge is made.
 */
export function offeredMethods(state: CheckoutState): readonly CheckoutMethod[] {
  if (state.status === 'none') return [];
  const declined = state.attempts.filter((a) => a.method === 'credit_card' && a.outcome === 'failed').length;
  if (declined < CARD_DECLINE_CAP) return state.created.methods;
  return state.created.methods.filter((m) => m !== 'credit_card');
}

/** Whether a payer may still pick a method: open or processing, before the deadline. */
export function acceptsPayments(state: CheckoutState, now: Date): boolean {
  if (state.status !== 'open' && state.status !== 'processing') return false;
  return now.getTime() < new Date(state.created.expires_at).getTime();
}

function withAttempt(
  attempts: readonly CheckoutAttempt[],
  id: string,
  outcome: AttemptOutcome,
): readonly CheckoutAttempt[] {
  return attempts.map((a) => (a.transactionId === id ? { ...a, outcome } : a));
}

const notFound = () => new DomainError('not_found', 'The checkout does not exist.');
const notLinked = () => new DomainError('not_found', 'The transaction is not a charge of this checkout.');

export const checkout: Decider<CheckoutCommand, CheckoutEvent, CheckoutState> = {
  initialState: { status: 'none' },

  evolve(state, event) {
    if (event.type === 'Checkout.Created') {
      return { status: 'open', created: event.data, attempts: [], paidTransactionId: null, latePayments: [] };
    }
    if (state.status === 'none') return state;
    switch (event.type) {
      case 'Checkout.PaymentStarted': {
        const attempts = [
          ...state.attempts,
          {
            transactionId: event.data.transaction_id,
            method: event.data.method,
            outcome: 'pending' as const,
          },
        ];
        const status = state.status === 'open' ? 'processing' : state.status;
        return { ...state, status, attempts };
      }
      case 'Checkout.PaymentFailed': {
        const attempts = withAttempt(state.attempts, event.data.transaction_id, event.data.outcome);
        const pending = attempts.some((a) => a.outcome === 'pending');
        const status = state.status === 'processing' && !pending ? 'open' : state.status;
        return { ...state, status, attempts };
      }
      case 'Checkout.Completed':
        return {
          ...state,
          status: 'completed',
          attempts: withAttempt(state.attempts, event.data.transaction_id, 'paid'),
          paidTransactionId: event.data.transaction_id,
        };
      case 'Checkout.LatePaymentRecorded':
        return {
          ...state,
          attempts: withAttempt(state.attempts, event.data.transaction_id, 'paid'),
          latePayments: [...state.latePayments, event.data.transaction_id],
        };
      case 'Checkout.Expired':
        return { ...state, status: 'expired' };
      case 'Checkout.Failed':
        return { ...state, status: 'failed' };
    }
  },

  decide(command, state, ctx) {
    const move = checkoutTransitions[state.status][command.kind];
    if ('refuse' in move) return new DomainError(move.refuse, 'The checkout does not exist.');
    if ('repeat' in move) {
      const same =
        state.status !== 'none' &&
        command.kind === 'create' &&
        JSON.stringify(state.created) === JSON.stringify(command.data);
      return same ? [] : new DomainError('conflict', 'This checkout already exists with other values.');
    }
    if (command.kind === 'create') {
      const parsed = createdData.safeParse(command.data);
      if (!parsed.success) return new DomainError('validation_error', 'Invalid checkout.');
      return [{ type: 'Checkout.Created', data: command.data }];
    }
    if (state.status === 'none') return notFound();
    const id = state.created.checkout_id;
    const linked =
      'transactionId' in command
        ? state.attempts.find((a) => a.transactionId === command.transactionId)
        : undefined;
    switch (command.kind) {
      case 'start':
        if (linked) return [];
        if ('noop' in move) return [];
        return [
          {
            type: 'Checkout.PaymentStarted',
            data: { checkout_id: id, transaction_id: command.transactionId, method: command.method },
          },
        ];
      case 'attempt_failed':
        if (!linked) return notLinked();
        if ('noop' in move || linked.outcome !== 'pending') return [];
        return [
          {
            type: 'Checkout.PaymentFailed',
            data: { checkout_id: id, transaction_id: command.transactionId, outcome: command.outcome },
          },
        ];
      case 'attempt_paid': {
        if (!linked) return notLinked();
        if (linked.outcome === 'paid') return [];
        if ('noop' in move) return [];
        const data = { checkout_id: id, transaction_id: command.transactionId };
        if (state.status === 'open' || state.status === 'processing') {
          return [{ type: 'Checkout.Completed', data }];
        }
        return [{ type: 'Checkout.LatePaymentRecorded', data }];
      }
      case 'expire': {
        if ('noop' in move) return [];
        if (ctx.now.getTime() < new Date(state.created.expires_at).getTime()) return [];
        const last = state.attempts.at(-1);
        return [
          {
            type: last?.outcome === 'failed' ? 'Checkout.Failed' : 'Checkout.Expired',
            data: { checkout_id: id },
          },
        ];
      }
    }
  },
};
