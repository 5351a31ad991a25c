import { ERRORS, type ErrorCode } from '../../src/http/errors.ts';

export type { ErrorCode };

/** Every SPEC 7 code the gateway answers with, for exhaustive handling. */
export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

/** The error envelope of SPEC 7: `{ error: { code, message, request_id, ... } }`. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  request_id: string;
  transaction_id?: string;
  provider_error_code?: string | null;
  provider_error_message?: string | null;
  provider_http_status?: number | null;
  param?: string;
  subscription_id?: string;
}

/**
 * An error answered by the gateway, or found by the SDK before the network with the server's own schemas
 * (`local: true`, no `request_id`). Decide on `code`, state and ids, never on `message` (SPEC 7).
 * Field names are the envelope's, so what a log shows is what the API sent.
 */
export class CalebeError extends Error {
  override readonly name = 'CalebeError';
  readonly code: ErrorCode;
  /** HTTP status; for a local error, the status the server gives this code. */
  readonly status: number;
  /** The `X-Request-ID` of the failed request; null for a local error (nothing was sent). */
  readonly request_id: string | null;
  /** Set on payment errors diagnosed after reservation (e.g. 502 provider_rejected): GET it by this id. */
  readonly transaction_id: string | null;
  readonly provider_error_code: string | null;
  readonly provider_error_message: string | null;
  readonly provider_http_status: number | null;
  /** The field at fault, as a dotted path (`customer.address.zip_code`, `query.limit`). */
  readonly param: string | null;
  /** A card subscription cancelled because its card registration was refused (502 provider_rejected). */
  readonly subscription_id: string | null;
  /** True when the SDK refused the request before sending it. */
  readonly local: boolean;

  constructor(body: ErrorBody & { status?: number }, local = false) {
    super(body.message);
    this.code = body.code;
    this.status = body.status ?? ERRORS[body.code]?.[0] ?? 0;
    this.request_id = local ? null : body.request_id;
    this.transaction_id = body.transaction_id ?? null;
    this.provider_error_code = body.provider_error_code ?? null;
    this.provider_error_message = body.provider_error_message ?? null;
    this.provider_http_status = body.provider_http_status ?? null;
    this.param = body.param ?? null;
    this.subscription_id = body.subscription_id ?? null;
    this.local = local;
  }
}

/**
 * The request may or may not have reached the gateway (connection refused or reset, timeout, abort, or an
 * answer that is not the JSON error envelope). The outcome is unknown: the SDK never retries (SPEC 9);
 * repeat the same request with the same Idempotency-Key, or read the charge, to find out.
 */
export class CalebeConnectionError extends Error {
  override readonly name: string = 'CalebeConnectionError';
  /** HTTP status when an answer arrived but was not the error envelope; null when none arrived. */
  readonly status: number | null;

  constructor(message: string, options: { cause?: unknown; status?: number | null } = {}) {
    super(message, { cause: options.cause });
    this.status = options.status ?? null;
  }
}

/**
 * The address answered with a redirect (3xx), which the SDK never follows: it would send the API key to the
 * host the redirect names (issue 23 item 2.6). The gateway itself never redirects, so this is a `baseUrl` to
 * correct (e.g. `http:` where the gateway is served on `https:`) or something between that must not see the
 * key. Nothing reached the gateway through this answer; as for any {@link CalebeConnectionError}, read the
 * resource or repeat with the same Idempotency-Key once the address is right.
 */
export class CalebeRedirectError extends CalebeConnectionError {
  override readonly name = 'CalebeRedirectError';
  /** The redirect's `Location` header as sent (null when absent); never requested by the SDK. */
  readonly location: string | null;

  constructor(method: string, path: string, status: number, location: string | null) {
    super(
      `${method} ${path}: HTTP ${status} redirect${location ? ` to ${location}` : ''}, not followed: the SDK never sends the API key to another address. Set baseUrl to the gateway's own address.`,
      { status },
    );
    this.location = location;
  }
}
