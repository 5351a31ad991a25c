import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/event-registry.ts';
import { type Decider, DomainError } from './decider.ts';
import type { ErrorCode } from './errors.ts';
import { SUBSCRIPTION_METHODS } from './subscription.ts';

/**
 * One cycle of a subscription (SPEC 2.5, 3.4; stream `cycle-<subscription_id>-<due_date>`, first appended with
 * no_stream: the reservation that makes a cycle happen once, whatever the number of workers or crashes).
 * `pending` while its charge is being issued; then `created` (a charge or a Pix link exists), `attention`
 * (reserved but refused or unconfirmed: never sent again in the cycle) or `skipped` (not charged).
 */

export const CYCLE_STATUSES = ['pending', 'created', 'attention', 'skipped'] as const;
export type CycleStatus = (typeof CYCLE_STATUSES)[number];
/** SPEC 2.5 `error_code` of an `attention` cycle. */
export const ATTENTION_CODES = ['payment_unknown', 'payment_processing', 'provider_rejected'] as const;
export type AttentionCode = (typeof ATTENTION_CODES)[number];
/** SPEC 2.5 `error_code` of a `skipped` cycle. */
export const SKIP_CODES = [
  'cycle_overdue',
  'automatic_schedule_window',
  'automatic_authorization_cancelled',
  'automatic_authorization_expired',
  'automatic_charge_exists',
] as const;
export type SkipCode = (typeof SKIP_CODES)[number];

const identity = {
  cycle_id: z.string().startsWith('scy_'),
  subscription_id: z.string().startsWith('sub_'),
  tenant_id: z.string().startsWith('ten_'),
  livemode: z.boolean(),
  method: z.enum(SUBSCRIPTION_METHODS),
  /** 0 only for the registration of a card whose first due date is in the future (SPEC 2.5). */
  cycle: z.number().int().min(0),
  due_date: z.iso.date(),
};
const reservedData = z.strictObject(identity);
export type CycleIdentity = z.infer<typeof reservedData>;
const issuedData = z.strictObject({
  cycle_id: identity.cycle_id,
  /** The cycle's charge; null for a Pix link until the payer chooses to pay, and for a card registration. */
  transaction_id: z.string().startsWith('txn_').nullable(),
  /** A Pix cycle's link (SPEC 4.10). */
  checkout_id: z.string().startsWith('chk_').nullable(),
});
const attentionData = z.strictObject({
  cycle_id: identity.cycle_id,
  transaction_id: z.string().startsWith('txn_').nullable(),
  error_code: z.enum(ATTENTION_CODES),
});
const skippedData = z.strictObject({ ...identity, error_code: z.enum(SKIP_CODES) });

export const cycleEvents = [
  defineEvent({
    type: 'Cycle.Reserved',
    audit: {
      action: 'cycle.reserved',
      when: "a subscription cycle's emission was reserved (once per due date)",
    },
    schema: reservedData,
  }),
  defineEvent({
    type: 'Cycle.Issued',
    audit: { action: 'cycle.issued', when: "a cycle's charge or Pix link was issued" },
    schema: issuedData,
  }),
  defineEvent({
    type: 'Cycle.AttentionNeeded',
    audit: {
      action: 'cycle.attention_needed',
      when: "a cycle's reserved charge was refused or is unconfirmed; it is never sent again in the cycle",
    },
    schema: attentionData,
  }),
  defineEvent({
    type: 'Cycle.Skipped',
    audit: { action: 'cycle.skipped', when: 'a cycle could no longer be issued and was not charged' },
    schema: skippedData,
  }),
];

export type CycleEvent = EventOf<(typeof cycleEvents)[number]>;
export type CycleEventType = CycleEvent['type'];

export type CycleState =
  | { readonly status: 'none' }
  | {
      readonly status: CycleStatus;
      readonly identity: CycleIdentity;
      readonly transactionId: string | null;
      readonly checkoutId: string | null;
      readonly errorCode: AttentionCode | SkipCode | null;
    };

export type CycleCommand =
  | { readonly kind: 'reserve'; readonly identity: CycleIdentity }
  | {
      readonly kind: 'issue';
      readonly transactionId: string | null;
      readonly checkoutId: string | null;
    }
  | { readonly kind: 'attention'; readonly transactionId: string | null; readonly errorCode: AttentionCode }
  /** `identity` is needed when nothing was reserved (a cycle that fell due while paused). */
  | { readonly kind: 'skip'; readonly identity: CycleIdentity; readonly errorCode: SkipCode };
export type CycleCommandKind = CycleCommand['kind'];

export type CycleMove =
  | { readonly emits: CycleEventType; readonly to: CycleStatus }
  | { readonly noop: true }
  | { readonly refuse: ErrorCode };

/**
 * State table (SPEC 3.4, 2.5). `=` no-op: a final cycle never changes again, so a repeated or late command of
 * a second worker or a crash's replay changes nothing (the charge was reserved once, under its own key).
 *
 *  state     |reserve          |issue            |attention                  |skip
 *  ----------+-----------------+-----------------+---------------------------+-----------------
 *  none      |Reserved->pending|404 not_found    |404 not_found              |Skipped->skipped
 *  pending   |=                |Issued->created  |AttentionNeeded->attention |Skipped->skipped
 *  created   |=                |=                |=                          |=
 *  attention |=                |=                |=                          |=
 *  skipped   |=                |=                |=                          |=
 */
export const cycleTransitions: {
  readonly [state in CycleStatus | 'none']: { readonly [kind in CycleCommandKind]: CycleMove };
} = {
  none: {
    reserve: { emits: 'Cycle.Reserved', to: 'pending' },
    issue: { refuse: 'not_found' },
    attention: { refuse: 'not_found' },
    skip: { emits: 'Cycle.Skipped', to: 'skipped' },
  },
  pending: {
    reserve: { noop: true },
    issue: { emits: 'Cycle.Issued', to: 'created' },
    attention: { emits: 'Cycle.AttentionNeeded', to: 'attention' },
    skip: { emits: 'Cycle.Skipped', to: 'skipped' },
  },
  created: {
    reserve: { noop: true },
    issue: { noop: true },
    attention: { noop: true },
    skip: { noop: true },
  },
  attention: {
    reserve: { noop: true },
    issue: { noop: true },
    attention: { noop: true },
    skip: { noop: true },
  },
  skipped: {
    reserve: { noop: true },
    issue: { noop: true },
    attention: { noop: true },
    skip: { noop: true },
  },
};

/** The stream of a cycle: one per subscription and due date (DESIGN.md "Feature modules"). */
export const cycleStream = (subscriptionId: string, dueDate: string) => `cycle-${subscriptionId}-${dueDate}`;

export const subscriptionCycle: Decider<CycleCommand, CycleEvent, CycleState> = {
  initialState: { status: 'none' },

  evolve(state, event) {
    switch (event.type) {
      case 'Cycle.Reserved':
        return {
          status: 'pending',
          identity: event.data,
          transactionId: null,
          checkoutId: null,
          errorCode: null,
        };
      case 'Cycle.Skipped': {
        const { error_code, ...identity } = event.data;
        return { status: 'skipped', identity, transactionId: null, checkoutId: null, errorCode: error_code };
      }
    }
    if (state.status === 'none') return state;
    switch (event.type) {
      case 'Cycle.Issued':
        return {
          ...state,
          status: 'created',
          transactionId: event.data.transaction_id,
          checkoutId: event.data.checkout_id,
        };
      case 'Cycle.AttentionNeeded':
        return {
          ...state,
          status: 'attention',
          transactionId: event.data.transaction_id,
          errorCode: event.data.error_code,
        };
    }
  },

  decide(command, state) {
    const move = cycleTransitions[state.status][command.kind];
    if ('refuse' in move) return new DomainError(move.refuse, 'The cycle does not exist.');
    if ('noop' in move) return [];
    switch (command.kind) {
      case 'reserve':
        return [{ type: 'Cycle.Reserved', data: command.identity }];
      case 'skip': {
        const identity = state.status === 'none' ? command.identity : state.identity;
        return [{ type: 'Cycle.Skipped', data: { ...identity, error_code: command.errorCode } }];
      }
    }
    if (state.status === 'none') return new DomainError('not_found', 'The cycle does not exist.');
    const cycle_id = state.identity.cycle_id;
    if (command.kind === 'issue') {
      return [
        {
          type: 'Cycle.Issued',
          data: { cycle_id, transaction_id: command.transactionId, checkout_id: command.checkoutId },
        },
      ];
    }
    return [
      {
        type: 'Cycle.AttentionNeeded',
        data: { cycle_id, transaction_id: command.transactionId, error_code: command.errorCode },
      },
    ];
  },
};
