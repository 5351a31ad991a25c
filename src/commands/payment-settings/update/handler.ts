import { isDomainError } from '../../../aggregates/decider.ts';
import {
  PAYMENT_SETTINGS_STREAM,
  type PaymentSettingsState,
  paymentSettings,
} from '../../../aggregates/payment-settings.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import {
  effectiveSetting,
  type LivePaymentsConfig,
  paymentSettingsUnavailable,
} from '../effective-setting.ts';
import { type PaymentSettingsView, paymentSettingsView } from '../view.ts';

/**
 * `PATCH /admin/settings/payments` (SPEC 4.14): saves the value, which applies at once. The event is the
 * audit record (previous and new values, administrator; request id in `metadata`). Safe to re-decide on a
 * concurrent save: the decision depends on nothing but the stream. A store failure is `503
 * payment_settings_unavailable`.
 */
export async function updatePaymentSettings(
  deps: CommandDeps,
  config: LivePaymentsConfig,
  input: { allowLivePayments: boolean; updatedBy: string },
  metadata: EventMetadata,
): Promise<PaymentSettingsView> {
  let state: PaymentSettingsState;
  try {
    const result = await handleCommand(
      deps,
      paymentSettings,
      PAYMENT_SETTINGS_STREAM,
      {
        kind: 'set_allow_live_payments',
        allowLivePayments: input.allowLivePayments,
        environmentDefault: config.ALLOW_LIVE_PAYMENTS,
        updatedBy: input.updatedBy,
      },
      { metadata, retryOnConflict: true },
    );
    state = result.state;
  } catch (error) {
    if (isDomainError(error)) throw error;
    throw paymentSettingsUnavailable();
  }
  return paymentSettingsView(effectiveSetting(state, config), config);
}
