import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/event-registry.ts';
import { checkoutCustomer } from './checkout.ts';
import { type Decider, DomainError } from './decider.ts';
import type { ErrorCode } from './errors.ts';
import { cycleDueDate } from './subscription-calendar.ts';
import { maskedCard } from './transaction/events.ts';

/**
 * A subscription (SPEC 2.4, 3.3, 4.10; stream `subscription-<id>`; docs/decisions.md "Subscriptions (issue
 * 26)"). It holds the contract (amount, method, calendar, payer) and where its calendar stands: the last
 * cycle started (`cycle`), the next due date, and the cycle whose emission is in progress. Each cycle is an
 * aggregate of its own (./subscription-cycle.ts, stream `cycle-<subscription>-<due_date>`); the scheduler
 * (src/commands/subscriptions/) starts a cycle here, issues its charge, then settles it here, so a status
 * change that arrives meanwhile lets the emission in progress finish (SPEC 3.3).
 */

export const SUBSCRIPTION_METHODS = ['boleto', 'pix', 'pix_automatic', 'credit_card'] as const;
export type SubscriptionMethod = (typeof SUBSCRIPTION_METHODS)[number];
export const SUBSCRIPTION_STATUSES = ['active', 'paused', 'cancelled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
/** How a started cycle ended (SPEC 2.5), as the subscription records it. */
export const CYCLE_OUTCOMES = ['created', 'attention', 'skipped'] as const;
export type CycleOutcome = (typeof CYCLE_OUTCOMES)[number];

const subscriptionId = z.string().startsWith('sub_');
const isoDate = z.iso.date();

/** The complete payer of every cycle's charge (SPEC 4.10), as the integrator sent it (original spelling). */
export const subscriptionCustomer = checkoutCustomer.required({
  name: true,
  document: true,
  email: true,
  phone: true,
  address: true,
});
export type SubscriptionCustomer = z.infer<typeof subscriptionCustomer>;

const createdData = z.strictObject({
  subscription_id: subscriptionId,
  tenant_id: z.string().startsWith('ten_'),
  livemode: z.boolean(),
  name: z.string(),
  description: z.string(),
  amount: z.number().int().min(1).max(100_000_000),
  method: z.enum(SUBSCRIPTION_METHODS),
  first_due_date: isoDate,
  interval_months: z.number().int().min(1).max(120),
  advance_days: z.number().int().min(0).max(30),
  customer: subscriptionCustomer,
  authorization_id: z.string().nullable(),
  callback_url: z.string().nullable(),
  cost_center_id: z.string().nullable(),
  /** A test-mode subscription's test clock (issue 26 item 6): its time is the clock's, never the system's. */
  test_clock_id: z.string().nullable(),
});
export type SubscriptionCreatedData = z.infer<typeof createdData>;

/**
 * The card a card subscription debits (SPEC 4.10): the provider's reusable token sealed (AES-256-GCM, bound to
 * this subscription, its tenant, mode, provider and environment: src/commands/credit-card/card-token.ts) and
 * the receiving account it was registered with; a cycle whose route now leads elsewhere is not charged.
 */
const cardRegisteredData = z.strictObject({
  subscription_id: subscriptionId,
  card: maskedCard,
  /** null for a test-mode card, which only the simulator ever sees (SPEC 5.2). */
  provider_id: z.string().startsWith('prv_').nullable(),
  environment: z.enum(['sandbox', 'production']),
  /** As a kept card's (src/aggregates/card.ts): the subaccount link whose token made it; absent before issue 28. */
  subaccount_id: z.string().startsWith('sac_').nullable().optional(),
  token_sealed: z.string().regex(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/),
});
export type SubscriptionCard = Omit<z.infer<typeof cardRegisteredData>, 'subscription_id'>;

const idOnly = z.strictObject({ subscription_id: subscriptionId });
const cancelledData = z.strictObject({
  subscription_id: subscriptionId,
  /** Why the gateway ended it (the card registration was refused); null when the integrator cancelled. */
  reason: z.string().nullable(),
});
const costCenterData = z.strictObject({
  subscription_id: subscriptionId,
  cost_center_id: z.string().nullable(),
});
const cycleRef = { subscription_id: subscriptionId, cycle: z.number().int().min(0), due_date: isoDate };
const cycleStartedData = z.strictObject(cycleRef);
const emissionFailedData = z.strictObject({
  ...cycleRef,
  /** The SPEC 7 code that stopped the emission before its charge was reserved (`last_error`). */
  reason: z.string(),
  next_attempt_at: z.iso.datetime(),
});
const cycleSettledData = z.strictObject({ ...cycleRef, outcome: z.enum(CYCLE_OUTCOMES) });
const attemptBroughtForwardData = z.strictObject({ ...cycleRef, next_attempt_at: z.iso.datetime() });

export interface CycleRef {
  readonly cycle: number;
  readonly dueDate: string;
}

export interface OpenedSubscription {
  readonly status: SubscriptionStatus;
  readonly created: SubscriptionCreatedData;
  readonly card: SubscriptionCard | null;
  readonly costCenterId: string | null;
  /** The last cycle started (0 before the first). */
  readonly cycle: number;
  /** The due date of the cycle after `cycle`; while a cycle is in progress (`pending`), that cycle's own. */
  readonly nextDueDate: string;
  /** The cycle whose emission is in progress: it finishes whatever the status became meanwhile (SPEC 3.3). */
  readonly pending: CycleRef | null;
  /** The reason the last emission attempt stopped before reservation (SPEC 2.4 `last_error`). */
  readonly lastError: string | null;
  /** When that emission is tried again (SPEC 8: every 15 minutes). */
  readonly nextAttemptAt: string | null;
  readonly cancelReason: string | null;
}

export type SubscriptionState =
  | { readonly status: 'none' }
  | { readonly status: 'deleted' }
  | OpenedSubscription;

export const subscriptionEvents = [
  defineEvent({
    type: 'Subscription.Created',
    audit: { action: 'subscription.created', when: 'a subscription was created' },
    schema: createdData,
  }),
  defineEvent({
    type: 'Subscription.CardRegistered',
    audit: {
      action: 'subscription.card_registered',
      when: "a card subscription's card was tokenized (token sealed; never the number)",
    },
    schema: cardRegisteredData,
  }),
  defineEvent({
    type: 'Subscription.Paused',
    audit: { action: 'subscription.paused', when: 'a subscription was paused' },
    schema: idOnly,
  }),
  defineEvent({
    type: 'Subscription.Resumed',
    audit: { action: 'subscription.resumed', when: 'a paused subscription was made active again' },
    schema: idOnly,
  }),
  defineEvent({
    type: 'Subscription.Cancelled',
    audit: { action: 'subscription.cancelled', when: 'a subscription was cancelled (final)' },
    schema: cancelledData,
  }),
  defineEvent({
    type: 'Subscription.CostCenterChanged',
    audit: {
      action: 'subscription.cost_center_changed',
      when: "a subscription's cost center changed (future cycles only)",
    },
    schema: costCenterData,
  }),
  defineEvent({
    type: 'Subscription.CycleStarted',
    audit: { action: 'subscription.cycle_started', when: "the emission of a subscription's cycle began" },
    schema: cycleStartedData,
  }),
  defineEvent({
    type: 'Subscription.EmissionFailed',
    audit: {
      action: 'subscription.emission_failed',
      when: "a cycle's charge could not be reserved; retried in 15 minutes while the cycle can be issued",
    },
    schema: emissionFailedData,
  }),
  defineEvent({
    type: 'Subscription.AttemptBroughtForward',
    audit: {
      action: 'subscription.attempt_brought_forward',
      when: "the payer approved a Pix Automatic authorization: the cycle's next emission attempt moved to the next minute",
    },
    schema: attemptBroughtForwardData,
  }),
  defineEvent({
    type: 'Subscription.CycleSettled',
    audit: {
      action: 'subscription.cycle_settled',
      when: 'a cycle ended created, attention or skipped and the calendar moved to the next due date',
    },
    schema: cycleSettledData,
  }),
  defineEvent({
    type: 'Subscription.Deleted',
    audit: {
      action: 'subscription.deleted',
      when: 'a subscription and its cycles were deleted in the panel',
    },
    schema: idOnly,
  }),
];

export type SubscriptionEvent = EventOf<(typeof subscriptionEvents)[number]>;

export type SubscriptionCommand =
  | { readonly kind: 'create'; readonly data: SubscriptionCreatedData }
  | { readonly kind: 'register_card'; readonly card: SubscriptionCard }
  | { readonly kind: 'pause' }
  /** `automaticAvailable`: a Pix Automatic subscription's authorization has not ended (SPEC 3.3). */
  | { readonly kind: 'resume'; readonly automaticAvailable: boolean }
  | { readonly kind: 'cancel'; readonly reason?: string | undefined }
  | { readonly kind: 'change_cost_center'; readonly costCenterId: string | null }
  | { readonly kind: 'start_cycle'; readonly cycle: number; readonly dueDate: string }
  | {
      readonly kind: 'emission_failed';
      readonly cycle: number;
      readonly dueDate: string;
      readonly reason: string;
      readonly nextAttemptAt: string;
    }
  /** SPEC 4.11: an approval found by refresh brings the cycle's next attempt forward (to `nextAttemptAt`). */
  | {
      readonly kind: 'bring_forward';
      readonly cycle: number;
      readonly dueDate: string;
      readonly nextAttemptAt: string;
    }
  | {
      readonly kind: 'settle_cycle';
      readonly cycle: number;
      readonly dueDate: string;
      readonly outcome: CycleOutcome;
    }
  | { readonly kind: 'delete' };
export type SubscriptionCommandKind = SubscriptionCommand['kind'];

export type SubscriptionMove =
  | { readonly emits: SubscriptionEvent['type']; readonly to: SubscriptionStatus | 'deleted' }
  | { readonly noop: true }
  | { readonly refuse: ErrorCode }
  | { readonly repeat: 'same_facts_or_conflict' }
  /** Decided by the cycle rule (c) below: the event when the cycle named is the one in question, else a no-op. */
  | { readonly cycleRule: SubscriptionEvent['type'] };

/**
 * State table (SPEC 3.3; the scheduler's moves are ours: docs/decisions.md "Subscriptions (issue 26)").
 * `=` no-op; sc = 409 subscription_cancelled; na = 409 automatic_not_available; 404 = not_found.
 *
 *  state    |create |register_card|pause   |resume        |cancel    |change_cost_center|start_cycle|emission_failed|bring_forward |settle_cycle|delete
 *  ---------+-------+-------------+--------+--------------+----------+------------------+-----------+---------------+--------------+------------+-------
 *  none     |Created|404          |404     |404           |404       |404               |404        |404            |404           |404         |404
 *  active   |repeat |CardRegist.  |Paused  |=             |Cancelled |CostCenterChanged |(c) Started|(c) Failed     |(c) BroughtFw.|(c) Settled |Deleted
 *  paused   |repeat |CardRegist.  |=       |(a) Resumed   |Cancelled |CostCenterChanged |409 conflict|(c) Failed    |(c) BroughtFw.|(c) Settled |Deleted
 *  cancelled|repeat |409 sc       |409 sc  |409 sc        |=         |CostCenterChanged |409 sc     |(c) Failed     |(c) BroughtFw.|(c) Settled |Deleted
 *  deleted  |404    |404          |404     |404           |404       |404               |404        |404            |404           |404         |404
 *
 *  - (a) a Pix Automatic subscription whose authorization ended stays paused: 409 automatic_not_available.
 *    Cycles that fell due while paused are skipped (`cycle_overdue`) by the scheduler once active (SPEC 3.3:
 *    no retroactive charge).
 *  - (c) start_cycle needs no cycle in progress and names the next one (`cycle + 1`, `nextDueDate`); a repeat of
 *    the cycle in progress is a no-op, any other cycle 409 conflict. emission_failed and settle_cycle name the
 *    cycle in progress (a settle may also skip the next cycle with none in progress: an overdue one); any other
 *    cycle is a no-op. They apply in every status, so an emission in progress finishes (SPEC 3.3).
 *    bring_forward names the cycle in progress too, and only moves its next attempt earlier (else a no-op).
 */
/** A row where every command is `404 not_found`: no subscription, or a deleted one. */
const GONE: { readonly [kind in SubscriptionCommandKind]: SubscriptionMove } = {
  create: { refuse: 'not_found' },
  register_card: { refuse: 'not_found' },
  pause: { refuse: 'not_found' },
  resume: { refuse: 'not_found' },
  cancel: { refuse: 'not_found' },
  change_cost_center: { refuse: 'not_found' },
  start_cycle: { refuse: 'not_found' },
  emission_failed: { refuse: 'not_found' },
  bring_forward: { refuse: 'not_found' },
  settle_cycle: { refuse: 'not_found' },
  delete: { refuse: 'not_found' },
};

export const subscriptionTransitions: {
  readonly [state in SubscriptionStatus | 'none' | 'deleted']: {
    readonly [kind in SubscriptionCommandKind]: SubscriptionMove;
  };
} = {
  none: { ...GONE, create: { emits: 'Subscription.Created', to: 'active' } },
  active: {
    create: { repeat: 'same_facts_or_conflict' },
    register_card: { emits: 'Subscription.CardRegistered', to: 'active' },
    pause: { emits: 'Subscription.Paused', to: 'paused' },
    resume: { noop: true },
    cancel: { emits: 'Subscription.Cancelled', to: 'cancelled' },
    change_cost_center: { emits: 'Subscription.CostCenterChanged', to: 'active' },
    start_cycle: { cycleRule: 'Subscription.CycleStarted' },
    emission_failed: { cycleRule: 'Subscription.EmissionFailed' },
    bring_forward: { cycleRule: 'Subscription.AttemptBroughtForward' },
    settle_cycle: { cycleRule: 'Subscription.CycleSettled' },
    delete: { emits: 'Subscription.Deleted', to: 'deleted' },
  },
  paused: {
    create: { repeat: 'same_facts_or_conflict' },
    register_card: { emits: 'Subscription.CardRegistered', to: 'paused' },
    pause: { noop: true },
    resume: { emits: 'Subscription.Resumed', to: 'active' },
    cancel: { emits: 'Subscription.Cancelled', to: 'cancelled' },
    change_cost_center: { emits: 'Subscription.CostCenterChanged', to: 'paused' },
    start_cycle: { refuse: 'conflict' },
    emission_failed: { cycleRule: 'Subscription.EmissionFailed' },
    bring_forward: { cycleRule: 'Subscription.AttemptBroughtForward' },
    settle_cycle: { cycleRule: 'Subscription.CycleSettled' },
    delete: { emits: 'Subscription.Deleted', to: 'deleted' },
  },
  cancelled: {
    create: { repeat: 'same_facts_or_conflict' },
    register_card: { refuse: 'subscription_cancelled' },
    pause: { refuse: 'subscription_cancelled' },
    resume: { refuse: 'subscription_cancelled' },
    cancel: { noop: true },
    change_cost_center: { emits: 'Subscription.CostCenterChanged', to: 'cancelled' },
    start_cycle: { refuse: 'subscription_cancelled' },
    emission_failed: { cycleRule: 'Subscription.EmissionFailed' },
    bring_forward: { cycleRule: 'Subscription.AttemptBroughtForward' },
    settle_cycle: { cycleRule: 'Subscription.CycleSettled' },
    delete: { emits: 'Subscription.Deleted', to: 'deleted' },
  },
  deleted: GONE,
};

const MESSAGES: Partial<Record<ErrorCode, string>> = {
  not_found: 'The subscription does not exist.',
  subscription_cancelled: 'A cancelled subscription cannot change status.',
  automatic_not_available: 'The Pix Automatic authorization has ended; create a new authorization.',
  conflict: 'That cycle is not the next one of this subscription.',
};

function refuse(code: ErrorCode): DomainError {
  return new DomainError(code, MESSAGES[code] ?? 'Refused.');
}

const sameCycle = (ref: CycleRef | null, cycle: number, dueDate: string) =>
  ref !== null && ref.cycle === cycle && ref.dueDate === dueDate;

/** The due date of the cycle after `cycle` (SPEC 4.10 calendar). */
export function dueDateAfter(
  created: Pick<SubscriptionCreatedData, 'first_due_date' | 'interval_months'>,
  cycle: number,
): string {
  return cycleDueDate(created.first_due_date, created.interval_months, cycle + 1);
}

export const subscription: Decider<SubscriptionCommand, SubscriptionEvent, SubscriptionState> = {
  initialState: { status: 'none' },

  evolve(state, event) {
    if (event.type === 'Subscription.Created') {
      const d = event.data;
      return {
        status: 'active',
        created: d,
        card: null,
        costCenterId: d.cost_center_id,
        cycle: 0,
        nextDueDate: d.first_due_date,
        pending: null,
        lastError: null,
        nextAttemptAt: null,
        cancelReason: null,
      };
    }
    if (state.status === 'none' || state.status === 'deleted') return state;
    switch (event.type) {
      case 'Subscription.CardRegistered': {
        const { subscription_id: _, ...card } = event.data;
        return { ...state, card };
      }
      case 'Subscription.Paused':
        return { ...state, status: 'paused' };
      case 'Subscription.Resumed':
        return { ...state, status: 'active', lastError: null, nextAttemptAt: null };
      case 'Subscription.Cancelled':
        return { ...state, status: 'cancelled', cancelReason: event.data.reason };
      case 'Subscription.CostCenterChanged':
        return { ...state, costCenterId: event.data.cost_center_id };
      case 'Subscription.CycleStarted':
        return {
          ...state,
          cycle: event.data.cycle,
          pending: { cycle: event.data.cycle, dueDate: event.data.due_date },
        };
      case 'Subscription.EmissionFailed':
        return { ...state, lastError: event.data.reason, nextAttemptAt: event.data.next_attempt_at };
      case 'Subscription.AttemptBroughtForward':
        return { ...state, nextAttemptAt: event.data.next_attempt_at };
      case 'Subscription.CycleSettled':
        return {
          ...state,
          cycle: event.data.cycle,
          nextDueDate: dueDateAfter(state.created, event.data.cycle),
          pending: null,
          lastError: null,
          nextAttemptAt: null,
        };
      case 'Subscription.Deleted':
        return { status: 'deleted' };
    }
  },

  decide(command, state) {
    const move = subscriptionTransitions[state.status][command.kind];
    if ('refuse' in move) return refuse(move.refuse);
    if ('noop' in move) return [];
    if (state.status === 'none') {
      if (command.kind !== 'create') return refuse('not_found');
      const parsed = createdData.safeParse(command.data);
      if (!parsed.success) return new DomainError('validation_error', 'Invalid subscription.');
      return [{ type: 'Subscription.Created', data: command.data }];
    }
    if (state.status === 'deleted') return refuse('not_found');
    const id = state.created.subscription_id;
    if ('repeat' in move) {
      const same =
        command.kind === 'create' && JSON.stringify(state.created) === JSON.stringify(command.data);
      return same ? [] : new DomainError('conflict', 'This subscription already exists with other values.');
    }
    switch (command.kind) {
      case 'create':
        return refuse('conflict');
      case 'register_card':
        return [{ type: 'Subscription.CardRegistered', data: { subscription_id: id, ...command.card } }];
      case 'pause':
        return [{ type: 'Subscription.Paused', data: { subscription_id: id } }];
      case 'resume':
        if (state.created.method === 'pix_automatic' && !command.automaticAvailable) {
          return refuse('automatic_not_available');
        }
        return [{ type: 'Subscription.Resumed', data: { subscription_id: id } }];
      case 'cancel':
        return [
          { type: 'Subscription.Cancelled', data: { subscription_id: id, reason: command.reason ?? null } },
        ];
      case 'change_cost_center':
        if (command.costCenterId === state.costCenterId) return [];
        return [
          {
            type: 'Subscription.CostCenterChanged',
            data: { subscription_id: id, cost_center_id: command.costCenterId },
          },
        ];
      case 'start_cycle': {
        if (sameCycle(state.pending, command.cycle, command.dueDate)) return [];
        const next =
          state.pending === null &&
          command.cycle === state.cycle + 1 &&
          command.dueDate === state.nextDueDate;
        if (!next) return refuse('conflict');
        return [
          {
            type: 'Subscription.CycleStarted',
            data: { subscription_id: id, cycle: command.cycle, due_date: command.dueDate },
          },
        ];
      }
      case 'emission_failed':
        if (!sameCycle(state.pending, command.cycle, command.dueDate)) return [];
        return [
          {
            type: 'Subscription.EmissionFailed',
            data: {
              subscription_id: id,
              cycle: command.cycle,
              due_date: command.dueDate,
              reason: command.reason,
              next_attempt_at: command.nextAttemptAt,
            },
          },
        ];
      case 'bring_forward': {
        const later =
          state.nextAttemptAt !== null && Date.parse(state.nextAttemptAt) > Date.parse(command.nextAttemptAt);
        if (!sameCycle(state.pending, command.cycle, command.dueDate) || !later) return [];
        return [
          {
            type: 'Subscription.AttemptBroughtForward',
            data: {
              subscription_id: id,
              cycle: command.cycle,
              due_date: command.dueDate,
              next_attempt_at: command.nextAttemptAt,
            },
          },
        ];
      }
      case 'settle_cycle': {
        const inProgress = sameCycle(state.pending, command.cycle, command.dueDate);
        const overdueNext =
          state.pending === null &&
          command.outcome === 'skipped' &&
          command.cycle === state.cycle + 1 &&
          command.dueDate === state.nextDueDate;
        if (!inProgress && !overdueNext) return [];
        return [
          {
            type: 'Subscription.CycleSettled',
            data: {
              subscription_id: id,
              cycle: command.cycle,
              due_date: command.dueDate,
              outcome: command.outcome,
            },
          },
        ];
      }
      case 'delete':
        return [{ type: 'Subscription.Deleted', data: { subscription_id: id } }];
    }
  },
};
