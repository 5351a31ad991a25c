import type { Scope } from './access.ts';
import { DomainError } from './decider.ts';

/**
 * The public subtenant rules (SPEC 4.13, 5.3, 5.5), pure: the command layer reads the facts (the caller key,
 * the target tenant) and these decide. A subtenant is a tenant (src/aggregates/tenant.ts) whose parent is
 * the key's tenant; its key is an API key (src/aggregates/api-key.ts): no aggregate of its own.
 */

/** The calling key, as authentication resolved it. */
export interface SubtenantCaller {
  readonly tenantId: string;
  readonly livemode: boolean;
  readonly scopes: ReadonlySet<Scope>;
}

/**
 * SPEC 4.13, 5.3 "production key only": a test key registers no tenant. `403 forbidden` as the other
 * one-mode operations (test clocks refuse a live key the same way): the key is valid, its mode may not.
 */
export function decideSubtenantRegistration(caller: Pick<SubtenantCaller, 'livemode'>): DomainError | null {
  if (caller.livemode) return null;
  return new DomainError('forbidden', 'Subtenants are registered with a production (live) key only.');
}

/** The tenant a key is asked for, as its stream and the suspension read model found it. */
export interface SubtenantKeyTarget {
  readonly tenantId: string;
  /** Root first, the tenant itself last; empty when the tenant does not exist. */
  readonly ancestorIds: readonly string[];
  /** The tenant or one of its ancestors is suspended (SPEC 5.5). */
  readonly blocked: boolean;
}

/** What a granted key of a subtenant gets: the caller's mode, the standard profile (SPEC 5.2, 5.4). */
export interface SubtenantKeyGrant {
  readonly livemode: boolean;
  readonly accessProfile: 'standard';
}

/**
 * SPEC 4.13, 5.3, 5.5: whether the caller may issue a key with `requested` scopes for `target`, in the order
 * a caller would fix them:
 *   - the caller's own tenant: `403 forbidden` (a key never creates a key for its own tenant);
 *   - missing or outside the caller's subtree: `404 not_found` (never confirms another tree's ids);
 *   - a scope the caller lacks: `403 insufficient_scope` (keys carry only what their creator can exercise);
 *   - the subtenant or an ancestor suspended: `403 tenant_suspended` (its credentials are blocked).
 * The key gets the caller's mode; the profile is `standard`, since a `developer` caller never gets here.
 */
export function decideSubtenantKey(
  caller: SubtenantCaller,
  target: SubtenantKeyTarget,
  requested: readonly Scope[],
): SubtenantKeyGrant | DomainError {
  if (target.tenantId === caller.tenantId) {
    return new DomainError('forbidden', 'A key cannot issue a key for its own tenant.');
  }
  if (!target.ancestorIds.includes(caller.tenantId) || target.ancestorIds.at(-1) !== target.tenantId) {
    return new DomainError('not_found', 'The subtenant does not exist.');
  }
  const missing = requested.filter((s) => !caller.scopes.has(s));
  if (missing.length > 0) {
    return new DomainError(
      'insufficient_scope',
      `A key can grant only its own scopes; this key lacks ${missing.join(', ')}.`,
      { param: 'scopes' },
    );
  }
  if (target.blocked) {
    return new DomainError('tenant_suspended', 'The subtenant or one of its ancestors is suspended.');
  }
  return { livemode: caller.livemode, accessProfile: 'standard' };
}
