import { DomainError } from '../decider.ts';
import type { ErrorCode } from '../errors.ts';

/** 422 validation_error on `param`. */
export function invalid(param: string, message: string): DomainError {
  return new DomainError('validation_error', message, { param });
}

export function refuse(code: ErrorCode, message: string, details: Record<string, unknown> = {}): DomainError {
  return new DomainError(code, message, details);
}
