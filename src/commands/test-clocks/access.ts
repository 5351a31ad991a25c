import type { Scope } from '../../aggregates/access.ts';
import { ApiError } from '../../aggregates/errors.ts';
import type { ApiKeyPrincipal } from '../principal.ts';

/** A clock serves subscriptions of every method, so any one of their write scopes changes it (SPEC 5.3). */
const CLOCK_WRITE_SCOPES: readonly Scope[] = ['pix:write', 'boleto:write', 'credit_card:write'];

export function requireClockWriteScope(principal: ApiKeyPrincipal): void {
  if (!CLOCK_WRITE_SCOPES.some((s) => principal.scopes.has(s))) {
    throw new ApiError(
      'insufficient_scope',
      `The API key lacks a subscription write scope (one of ${CLOCK_WRITE_SCOPES.join(', ')}).`,
    );
  }
}
