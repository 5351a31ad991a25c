import { DomainError } from '../../aggregates/decider.ts';
import {
  PAYMENT_SETTINGS_STREAM,
  type PaymentSettingsState,
  paymentSettings,
} from '../../aggregates/payment-settings.ts';
import type { Config } from '../../config.ts';
import type { CommandDeps } from '../command-handler.ts';
import { foldStream } from '../fold-stream.ts';

/** The environment side of the production control (SPEC 5.8), as parsed at start. */
export type LivePaymentsConfig = Pick<
  Config,
  'ALLOW_LIVE_PAYMENTS' | 'ALLOW_UNSCOPED_LIVE_PAYMENTS' | 'LIVE_PAYMENT_SCOPE_JSON'
>;

export interface EffectiveSetting {
  allowLivePayments: boolean;
  source: 'database' | 'environment';
  updatedAt: string | null;
  updatedBy: string | null;
}

export function paymentSettingsUnavailable(): DomainError {
  return new DomainError(
    'payment_settings_unavailable',
    'The production payments control cannot be read or written.',
  );
}

export function effectiveSetting(state: PaymentSettingsState, config: LivePaymentsConfig): EffectiveSetting {
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
    throw paymentSettingsUnavailable();
  }
  return effectiveSetting(state, config);
}

/** SPEC 2.7: on together with a valid scope or the explicit unscoped authorization. */
export function issuanceAuthorized(allowLivePayments: boolean, config: LivePaymentsConfig): boolean {
  return (
    allowLivePayments && (config.LIVE_PAYMENT_SCOPE_JSON !== undefined || config.ALLOW_UNSCOPED_LIVE_PAYMENTS)
  );
}
