import type { AccessProfile, Role, Scope } from '../aggregates/access.ts';
import { DomainError } from '../aggregates/decider.ts';
import { ApiError } from '../aggregates/errors.ts';

/** A request authenticated by an API key (SPEC 5.1). */
export interface ApiKeyPrincipal {
  kind: 'api_key';
  keyId: string;
  tenantId: string;
  livemode: boolean;
  scopes: ReadonlySet<Scope>;
  accessProfile: AccessProfile;
  /** Event metadata actor: `api_key:<id>`. */
  actor: string;
}

/** A request authenticated by a panel session (SPEC 5.6). */
export interface SessionPrincipal {
  kind: 'session';
  sessionId: string;
  userId: string;
  role: Role;
  /** null only for a super_admin not bound to a tenant (the bootstrap administrator). */
  tenantId: string | null;
  /** Event metadata actor: `user:<id>`. */
  actor: string;
}

export type Principal = ApiKeyPrincipal | SessionPrincipal;

export function requireScopes(principal: ApiKeyPrincipal, scopes: readonly Scope[]): void {
  const missing = scopes.filter((s) => !principal.scopes.has(s));
  if (missing.length > 0) {
    throw new ApiError('insufficient_scope', `The API key lacks the scope ${missing.join(', ')}.`);
  }
}

/** SPEC 4 common rules: a public creation takes its tenant from the API key, never from the body. */
export function refuseBodyTenant(tenantId: unknown): void {
  if (tenantId !== undefined) {
    throw new DomainError(
      'tenant_from_api_key',
      'Do not send tenant_id: the tenant comes from the API key.',
      {
        param: 'tenant_id',
      },
    );
  }
}
