import { type ApiError, ERROR_MESSAGES, type ErrorCode } from '../aggregates/errors.ts';

export { ApiError, type ErrorCode, type ErrorExtras, isErrorCode } from '../aggregates/errors.ts';

/** SPEC.md section 7: the HTTP status of every error code. Every code must be here (it does not compile else). */
export const HTTP_STATUS = {
  invalid_json: 400,
  idempotency_key_required: 400,
  unauthorized: 401,
  invalid_credentials: 401,
  insufficient_scope: 403,
  forbidden: 403,
  tenant_suspended: 403,
  live_payments_disabled: 403,
  live_payment_out_of_scope: 403,
  origin_denied: 403,
  not_found: 404,
  idempotency_conflict: 409,
  reconciliation_required: 409,
  provider_status_conflict: 409,
  simulation_not_allowed: 409,
  subaccount_changed: 409,
  marketplace_has_subaccounts: 409,
  automatic_authorization_in_use: 409,
  automatic_charge_exists: 409,
  subscription_cancelled: 409,
  automatic_not_available: 409,
  type_has_children: 409,
  cannot_suspend_self: 409,
  conflict: 409,
  refund_in_progress: 409,
  change_in_progress: 409,
  request_too_large: 413,
  validation_error: 422,
  tenant_from_api_key: 422,
  provider_not_configured: 422,
  provider_method_disabled: 422,
  subaccount_not_configured: 422,
  subaccount_credentials_missing: 422,
  provider_pix_sandbox_unsupported: 422,
  provider_card_sandbox_unsupported: 422,
  simulator_disabled: 422,
  amount_limit_exceeded: 422,
  fee_exceeds_amount: 422,
  split_no_merchant_amount: 422,
  split_pix_fee_exceeds_amount: 422,
  invalid_cost_center: 422,
  automatic_contract_mismatch: 422,
  automatic_not_approved: 422,
  automatic_schedule_window: 422,
  automatic_calendar_mismatch: 422,
  automatic_routing_changed: 422,
  automatic_provider_unavailable: 422,
  rate_limit_exceeded: 429,
  internal_error: 500,
  provider_rejected: 502,
  provider_refresh_failed: 502,
  provider_cancel_unconfirmed: 502,
  payment_settings_unavailable: 503,
  rate_limiter_unavailable: 503,
  not_ready: 503,
} as const satisfies Record<ErrorCode, number>;

/** Code → [status, default message], for the OpenAPI document and the SDK. */
export const ERRORS = Object.fromEntries(
  Object.entries(HTTP_STATUS).map(([code, status]) => [code, [status, ERROR_MESSAGES[code as ErrorCode]]]),
) as unknown as { readonly [C in ErrorCode]: readonly [(typeof HTTP_STATUS)[C], (typeof ERROR_MESSAGES)[C]] };

export function statusOf(error: ApiError): number {
  return error.statusOverride ?? HTTP_STATUS[error.code];
}
