import { DomainError, isDomainError } from '../aggregates/decider.ts';
import {
  PAYMENT_SETTINGS_STREAM,
  type PaymentSettingsState,
  paymentSettings,
} from '../aggregates/payment-settings.ts';
import type { Config } from '../config.ts';
import type { EventMetadata } from '../events/event-store.ts';
import { type CommandDeps, handleCommand } from './command-handler.ts';
import { foldStream } from './fold-stream.ts';

/** The environment side of the production control (SPEC 5.8), as parsed at start. */
export type LivePaymentsConfig = Pick<
  Config,
  'ALLOW_LIVE_PAYMENTS' | 'ALLOW_UNSCOPED_LIVE_PAYMENTS' | 'LIVE_PAYMENT_SCOPE_JSON'
>;

/** SPEC 2.7 "Platform payment setting", as `GET/PATCH /admin/settings/payments` answer it. */
export interface PaymentSettingsView {
  allow_live_payments: boolean;
  source: 'database' | 'environment';
  environment_default: boolean;
  allow_unscoped_live_payments: boolean;
  has_live_payment_scope: boolean;
  issuance_authorized: boolean;
  updated_at: string | null;
  updated_by: string | null;
}

export interface EffectiveSetting {
  allowLivePayments: boolean;
  source: 'database' | 'environment';
  updatedAt: string | null;
  updatedBy: string | null;
}

function unavailable(): DomainError {
  return new DomainError(
    'payment_settings_unavailable',
    'The production payments control cannot be read or written.',
  );
}

function effective(state: PaymentSettingsState, config: LivePaymentsConfig): EffectiveSetting {
  if (!state.saved) {
    return {
      allowLivePayments: config.ALLOW_LIVE_PAYMENTS,
      source: 'environment',
      updatedAt: null,
      updatedBy: null,
    };
  }
  return {
    allowLivePayments: state.allowLivePayments,
    source: 'database',
    updatedAt: state.updatedAt,
    updatedBy: state.updatedBy,
  };
}

/**
 * The effective `allow_live_payments`: the saved record, or the environment default while none exists.
 * Folded from the stream on every call (always current, no cache to go stale across instances). A read
 * failure is `503 payment_settings_unavailable`: never a fallback to the environment value (SPEC 7).
 */
export async function readEffectiveSetting(
  deps: Pick<CommandDeps, 'store' | 'registry'>,
  config: LivePaymentsConfig,
): Promise<EffectiveSetting> {
  let state: PaymentSettingsState;
  try {
    state = await foldStream(deps, paymentSettings, PAYMENT_SETTINGS_STREAM);
  } catch {
    throw unavailable();
  }
  return effective(state, config);
}

/** SPEC 2.7: on together with a valid scope or the explicit unscoped authorization. */
export function issuanceAuthorized(allowLivePayments: boolean, config: LivePaymentsConfig): boolean {
  return (
    allowLivePayments && (config.LIVE_PAYMENT_SCOPE_JSON !== undefined || config.ALLOW_UNSCOPED_LIVE_PAYMENTS)
  );
}

function view(setting: EffectiveSetting, config: LivePaymentsConfig): PaymentSettingsView {
  return {
    allow_live_payments: setting.allowLivePayments,
    source: setting.source,
    environment_default: config.ALLOW_LIVE_PAYMENTS,
    allow_unscoped_live_payments: config.ALLOW_UNSCOPED_LIVE_PAYMENTS,
    // Only whether a scope exists: its content is never returned (SPEC 2.7).
    has_live_payment_scope: config.LIVE_PAYMENT_SCOPE_JSON !== undefined,
    issuance_authorized: issuanceAuthorized(setting.allowLivePayments, config),
    updated_at: setting.updatedAt,
    updated_by: setting.updatedBy,
  };
}

export async function getPaymentSettings(
  deps: Pick<CommandDeps, 'store' | 'registry'>,
  config: LivePaymentsConfig,
): Promise<PaymentSettingsView> {
  return view(await readEffectiveSetting(deps, config), config);
}

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
    throw unavailable();
  }
  return view(effective(state, config), config);
}
