import { z } from 'zod';
import { defineEvent } from '../events/event-registry.ts';
import type { Decider, DomainEvent } from './decider.ts';

/**
 * The platform payment setting (SPEC 2.7, 4.14, 5.8; one stream, `payment_settings-global`): the global
 * production payments control. While the stream is empty the environment default `ALLOW_LIVE_PAYMENTS`
 * applies; the first saved value replaces it for good (restarts and variable changes never overwrite it).
 *
 * `PaymentSettings.Updated` is its own audit record (SPEC 4.14 "audited in the same transaction"): it
 * carries the previous and new values and the administrator; the request id rides in the event metadata.
 */

export const PAYMENT_SETTINGS_STREAM = 'payment_settings-global';

const updatedData = z.strictObject({
  allow_live_payments: z.boolean(),
  previous_allow_live_payments: z.boolean(),
  /** Where the previous value came from: the environment default (no record yet) or a saved record. */
  previous_source: z.enum(['database', 'environment']),
  /** Administrator id (`usr_...`). */
  updated_by: z.string().min(1),
  updated_at: z.iso.datetime(),
});

export const paymentSettingsEvents = [
  defineEvent({
    type: 'PaymentSettings.Updated',
    audit: {
      action: 'settings.payments.updated',
      when: 'the production payments control changed (SPEC 4.14); `before`/`after` hold `allow_live_payments`',
    },
    schema: updatedData,
  }),
];

export type PaymentSettingsUpdatedData = z.infer<typeof updatedData>;
export type PaymentSettingsEvent = DomainEvent<'PaymentSettings.Updated', PaymentSettingsUpdatedData>;

export type PaymentSettingsState =
  | { readonly saved: false }
  | {
      readonly saved: true;
      readonly allowLivePayments: boolean;
      readonly updatedAt: string;
      readonly updatedBy: string;
    };

export interface SetAllowLivePayments {
  readonly kind: 'set_allow_live_payments';
  readonly allowLivePayments: boolean;
  /** `ALLOW_LIVE_PAYMENTS` as this process read it: the "previous" value while nothing is saved. */
  readonly environmentDefault: boolean;
  readonly updatedBy: string;
}
export type PaymentSettingsCommand = SetAllowLivePayments;

/**
 * State table:
 *
 *   state              | set(v)
 *   -------------------+----------------------------------------------------------------
 *   not saved          | PaymentSettings.Updated (previous = environment default) -> saved
 *   saved, value != v  | PaymentSettings.Updated (previous = saved value)
 *   saved, value == v  | no-op (nothing changed, nothing to audit)
 *
 * A first save always appends, even when it equals the environment default: from then on the record, not
 * the variable, decides.
 */
export const paymentSettings: Decider<PaymentSettingsCommand, PaymentSettingsEvent, PaymentSettingsState> = {
  initialState: { saved: false },

  evolve(_state, event) {
    return {
      saved: true,
      allowLivePayments: event.data.allow_live_payments,
      updatedAt: event.data.updated_at,
      updatedBy: event.data.updated_by,
    };
  },

  decide(command, state, ctx) {
    if (state.saved && state.allowLivePayments === command.allowLivePayments) return [];
    return [
      {
        type: 'PaymentSettings.Updated',
        data: {
          allow_live_payments: command.allowLivePayments,
          previous_allow_live_payments: state.saved ? state.allowLivePayments : command.environmentDefault,
          previous_source: state.saved ? 'database' : 'environment',
          updated_by: command.updatedBy,
          updated_at: ctx.now.toISOString(),
        },
      },
    ];
  },
};
