/**
 * SPEC.md section 7: every error code the service answers with, its HTTP status and a default message.
 * Messages never carry secrets, tokens, raw provider text or personal data.
 */
export const ERRORS = {
  invalid_json: [400, 'The body is not one valid JSON object with only documented fields.'],
  idempotency_key_required: [
    400,
    'The Idempotency-Key header is required: 1 to 128 characters of A-Z a-z 0-9 . _ : -',
  ],
  unauthorized: [401, 'Credentials are missing, invalid, revoked or expired.'],
  invalid_credentials: [401, 'E-mail or password is wrong.'],
  insufficient_scope: [403, 'The API key lacks a scope this operation needs.'],
  forbidden: [403, 'Your role does not allow this operation.'],
  tenant_suspended: [403, 'The tenant or one of its ancestors is suspended.'],
  live_payments_disabled: [403, 'Production payments are disabled.'],
  live_payment_out_of_scope: [403, 'This charge is outside the authorized production scope.'],
  origin_denied: [403, 'This browser origin is not allowed.'],
  not_found: [404, 'Not found.'],
  idempotency_conflict: [409, 'This Idempotency-Key was used with another body or method.'],
  reconciliation_required: [409, 'The outcome must be reconciled before this operation.'],
  provider_status_conflict: [409, 'The provider update would regress a final state; local state kept.'],
  simulation_not_allowed: [409, 'Only a pending simulated transaction can be simulated.'],
  subaccount_changed: [409, 'The subaccount changed concurrently.'],
  marketplace_has_subaccounts: [409, 'The marketplace provider still has active subaccount links.'],
  automatic_authorization_in_use: [409, 'The authorization already belongs to another subscription.'],
  automatic_charge_exists: [409, 'A debit already exists for that due date.'],
  subscription_cancelled: [409, 'A cancelled subscription cannot change status.'],
  automatic_not_available: [409, 'The Pix Automatic authorization has ended.'],
  type_has_children: [409, 'The tenant type is in use by tenants with children.'],
  cannot_suspend_self: [409, 'You cannot suspend your own tenant or user.'],
  conflict: [409, 'The resource conflicts with an existing one.'],
  refund_in_progress: [
    409,
    'A refund of this charge is already in progress; read the charge or retry later with the same key.',
  ],
  change_in_progress: [
    409,
    'A due-date change of this boleto is already in progress; read the charge or retry later with the same key.',
  ],
  request_too_large: [413, 'The body is larger than 1 MiB.'],
  validation_error: [422, 'A field is invalid.'],
  tenant_from_api_key: [422, 'Do not send tenant_id: the tenant comes from the API key.'],
  provider_not_configured: [422, 'No routing rule or enabled provider for this method.'],
  provider_method_disabled: [422, 'The method is disabled on the provider.'],
  subaccount_not_configured: [422, 'No active, enabled subaccount link for this tenant.'],
  subaccount_credentials_missing: [422, 'The subaccount link has no usable credential for this environment.'],
  provider_pix_sandbox_unsupported: [422, 'The external provider has no Pix sandbox.'],
  simulator_disabled: [422, 'The simulator is disabled.'],
  amount_limit_exceeded: [422, "The amount is above the routing rule's maximum."],
  fee_exceeds_amount: [422, 'The fees exceed the amount of the charge.'],
  invalid_cost_center: [422, 'The cost center is inactive or belongs to another tenant.'],
  automatic_contract_mismatch: [422, 'The values differ from the Pix Automatic authorization.'],
  automatic_not_approved: [422, 'The payer has not approved the authorization yet.'],
  automatic_schedule_window: [422, 'A debit must be scheduled 2 to 10 days ahead.'],
  automatic_calendar_mismatch: [422, 'The date is not in the authorized calendar.'],
  automatic_routing_changed: [422, 'The Pix rule now uses another account; a new authorization is needed.'],
  automatic_provider_unavailable: [422, 'The Pix rule does not use the production provider.'],
  rate_limit_exceeded: [
    429,
    'Rate limit reached; wait at least 60 seconds with jitter and retry the same request.',
  ],
  internal_error: [
    500,
    'Internal error; the outcome is unconfirmed. Keep the Idempotency-Key and query before repeating.',
  ],
  provider_rejected: [502, 'The provider refused the charge.'],
  provider_refresh_failed: [502, 'The provider query failed or diverged; local state kept.'],
  provider_cancel_unconfirmed: [502, 'The provider did not confirm the revocation.'],
  payment_settings_unavailable: [503, 'The production payments control cannot be read or written.'],
  rate_limiter_unavailable: [503, 'The rate-limit store is unavailable; access fails closed.'],
  not_ready: [503, 'The service is not ready.'],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof ERRORS;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERRORS, code);
}

/** Extra fields allowed directly inside `error` (SPEC 7): ids and provider diagnostics, or the field at fault. */
export interface ErrorExtras {
  transaction_id?: string;
  provider_error_code?: string | null;
  provider_error_message?: string | null;
  provider_http_status?: number | null;
  /** The body or query field at fault, as a dotted path (validation errors). */
  param?: string;
}

/** An error answered to the client as `{ error: { code, message, request_id, ... } }`. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly extras: ErrorExtras = {},
    /** Only where SPEC 7 gives one code two statuses (`reconciliation_required` is 409 or 503). */
    status?: number,
  ) {
    super(message ?? ERRORS[code][1]);
    this.status = status ?? ERRORS[code][0];
  }
}
