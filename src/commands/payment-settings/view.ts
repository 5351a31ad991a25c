import type { CommandDeps } from '../command-handler.ts';
import {
  type EffectiveSetting,
  issuanceAuthorized,
  type LivePaymentsConfig,
  readEffectiveSetting,
} from './effective-setting.ts';

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

export function paymentSettingsView(
  setting: EffectiveSetting,
  config: LivePaymentsConfig,
): PaymentSettingsView {
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
  return paymentSettingsView(await readEffectiveSetting(deps, config), config);
}
