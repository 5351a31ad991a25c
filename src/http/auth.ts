import type { FastifyRequest } from 'fastify';
import { ApiError } from '../aggregates/errors.ts';
import {
  type ApiKeyPrincipal,
  type Principal,
  requireScopes,
  type SessionPrincipal,
} from '../commands/principal.ts';
import { IDEMPOTENCY_KEY } from '../contract/envelopes.ts';
import type { OperationAccess } from '../contract/operation.ts';

export { type AccessProfile, ROLES, type Role, SCOPES, type Scope } from '../aggregates/access.ts';
export type { ApiKeyPrincipal, Principal, SessionPrincipal } from '../commands/principal.ts';

/** Resolves the credential of a request or throws the SPEC 7 error (401 unauthorized, 403 tenant_suspended). */
export type Authenticator<P extends Principal> = (request: FastifyRequest) => Promise<P>;

/** Per-route access rules, read by the onRequest chain before the body is parsed. */
export type RouteAccess = OperationAccess;

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** Checks a resolved principal against the route's rules. */
export function checkAccess(principal: Principal, access: RouteAccess): void {
  if (principal.kind === 'api_key') {
    requireScopes(principal, access.scopes ?? []);
    if (access.notForDeveloperKeys && principal.accessProfile === 'developer') {
      throw new ApiError('insufficient_scope', 'Keys with the developer access profile cannot do this.');
    }
  } else if (access.roles && !access.roles.includes(principal.role)) {
    throw new ApiError('forbidden');
  }
}

/** SPEC 4 common rules: the header, 1 to 128 characters of `[A-Za-z0-9._:-]`, or 400. */
export function idempotencyKeyOf(request: FastifyRequest): string {
  const value = request.headers['idempotency-key'];
  if (typeof value !== 'string' || !IDEMPOTENCY_KEY.test(value))
    throw new ApiError('idempotency_key_required');
  return value;
}

export function apiKeyPrincipal(request: FastifyRequest): ApiKeyPrincipal {
  if (request.principal?.kind !== 'api_key') throw new ApiError('unauthorized');
  return request.principal;
}

export function sessionPrincipal(request: FastifyRequest): SessionPrincipal {
  if (request.principal?.kind !== 'session') throw new ApiError('unauthorized');
  return request.principal;
}
