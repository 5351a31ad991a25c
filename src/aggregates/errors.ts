/**
 * SPEC.md section 7: every error code the service answers with and its default message. The codes are the
 * vocabulary every floor shares (deciders, commands, the HTTP table in src/http/errors.ts, which must map
 * each one: an unmapped code does not compile). Messages never carry secrets, tokens, raw provider text or
 * personal data.
 */
export const ERROR_MESSAGES = {
  invalid_json: 'The body is not one valid JSON object with only documented fields.',
  idempotency_key_required:
    'The Idempotency-Key header is required: 1 to 128 characters of A-Z a-z 0-9 . _ : -',
  unauthorized: 'Credentials are missing, invalid, revoked or expired.',
  invalid_credentials: 'E-mail or password is wrong.',
  insufficient_scope: 'The API key lacks a scope this operation needs.',
  forbidden: 'Your role does not allow this operation.',
  tenant_suspended: 'The tenant or one of its ancestors is suspended.',
  live_payments_disabled: 'Production payments are disabled.',
  live_payment_out_of_scope: 'This charge is outside the authorized production scope.',
  origin_denied: 'This browser origin is not allowed.',
  not_found: 'Not found.',
  idempotency_conflict: 'This Idempotency-Key was used with another body or method.',
  reconciliation_required: 'The outcome must be reconciled before this operation.',
  provider_status_conflict: 'The provider update would regress a final state; local state kept.',
  simulation_not_allowed: 'Only a pending simulated transaction can be simulated.',
  subaccount_changed: 'The subaccount changed concurrently.',
  marketplace_has_subaccounts: 'The marketplace provider still has active subaccount links.',
  automatic_authorization_in_use: 'The authorization already belongs to another subscription.',
  automatic_charge_exists: 'A debit already exists for that due date.',
  subscription_cancelled: 'A cancelled subscription cannot change status.',
  automatic_not_available: 'The Pix Automatic authorization has ended.',
  type_has_children: 'The tenant type is in use by tenants with children.',
  cannot_suspend_self: 'You cannot suspend your own tenant or user.',
  conflict: 'The resource conflicts with an existing one.',
  refund_in_progress:
    'A refund of this charge is already in progress; read the charge or retry later with the same key.',
  change_in_progress:
    'A due-date change of this boleto is already in progress; read the charge or retry later with the same key.',
  request_too_large: 'The body is larger than 1 MiB.',
  validation_error: 'A field is invalid.',
  tenant_from_api_key: 'Do not send tenant_id: the tenant comes from the API key.',
  provider_not_configured: 'No routing rule or enabled provider for this method.',
  provider_method_disabled: 'The method is disabled on the provider.',
  subaccount_not_configured: 'No active, enabled subaccount link for this tenant.',
  subaccount_credentials_missing: 'The subaccount link has no usable credential for this environment.',
  provider_pix_sandbox_unsupported: 'The external provider has no Pix sandbox.',
  provider_card_sandbox_unsupported: 'The external provider sandbox does not take cards.',
  simulator_disabled: 'The simulator is disabled.',
  amount_limit_exceeded: "The amount is above the routing rule's maximum.",
  fee_exceeds_amount: 'The fees exceed the amount of the charge.',
  split_no_merchant_amount:
    'The fees equal the amount of the charge: nothing would be left for the merchant.',
  split_pix_fee_exceeds_amount: "The Pix fees of the boleto's attached Pix reach the amount of the charge.",
  invalid_cost_center: 'The cost center is inactive or belongs to another tenant.',
  automatic_contract_mismatch: 'The values differ from the Pix Automatic authorization.',
  automatic_not_approved: 'The payer has not approved the authorization yet.',
  automatic_schedule_window: 'A debit must be scheduled 2 to 10 days ahead.',
  automatic_calendar_mismatch: 'The date is not in the authorized calendar.',
  automatic_routing_changed: 'The Pix rule now uses another account; a new authorization is needed.',
  automatic_provider_unavailable: 'The Pix rule does not use the production provider.',
  rate_limit_exceeded: 'Rate limit reached; wait at least 60 seconds with jitter and retry the same request.',
  internal_error:
    'Internal error; the outcome is unconfirmed. Keep the Idempotency-Key and query before repeating.',
  provider_rejected: 'The provider refused the charge.',
  provider_refresh_failed: 'The provider query failed or diverged; local state kept.',
  provider_cancel_unconfirmed: 'The provider did not confirm the revocation.',
  payment_settings_unavailable: 'The production payments control cannot be read or written.',
  rate_limiter_unavailable: 'The rate-limit store is unavailable; access fails closed.',
  not_ready: 'The service is not ready.',
} as const satisfies Record<string, string>;

export type ErrorCode = keyof typeof ERROR_MESSAGES;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_MESSAGES, code);
}

/** Extra fields allowed directly inside `error` (SPEC 7): ids and provider diagnostics, or the field at fault. */
export interface ErrorExtras {
  transaction_id?: string;
  provider_error_code?: string | null;
  provider_error_message?: string | null;
  provider_http_status?: number | null;
  /** The body or query field at fault, as a dotted path (validation errors). */
  param?: string;
  /** A card subscription whose card registration was refused: created, then cancelled (SPEC 3.3, 4.10). */
  subscription_id?: string;
}

/**
 * A refusal answered to the client as `{ error: { code, message, request_id, ... } }`, with the extras SPEC 7
 * allows. The HTTP status comes from the code (src/http/errors.ts).
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly extras: ErrorExtras = {},
    /** Only where SPEC 7 gives one code two statuses (`reconciliation_required` is 409 or 503). */
    readonly statusOverride?: number,
  ) {
    super(message ?? ERROR_MESSAGES[code]);
  }
}
