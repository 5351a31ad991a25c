import { DomainError } from '../decider.ts';
import type { ErrorCode } from '../errors.ts';

/** 422 validation_error on `param`. */
export function invalid(param: string, message: string): DomainError {
  return new DomainError('validation_error', message, { param });
}

export function refuse(code: ErrorCode, message: string, details: Record<string, unknown> = {}): DomainError {
  return new DomainError(code, message, details);
}

/** 502 provider_refresh_failed: what the provider read contradicts what this charge can be (SPEC 3.1 (r)(b)(x)). */
export function refreshFailed(transactionId: string, message: string): DomainError {
  return refuse('provider_refresh_failed', message, { transaction_id: transactionId });
}
