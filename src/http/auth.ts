import type { FastifyRequest } from 'fastify';
import type { AccessProfile, Role, Scope } from '../aggregates/access.ts';
import { IDEMPOTENCY_KEY } from '../contract/envelopes.ts';
import { ApiError } from './errors.ts';

export { type AccessProfile, ROLES, type Role, SCOPES, type Scope } from '../aggregates/access.ts';

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

/** Resolves the credential of a request or throws the SPEC 7 error (401 unauthorized, 403 tenant_suspended). */
export type Authenticator<P extends Principal> = (request: FastifyRequest) => Promise<P>;

/** Per-route access rules, read by the onRequest chain before the body is parsed. */
export interface RouteAccess {
  /** Which credential the route takes; absent means none (health, docs, login). */
  auth?: 'api_key' | 'session';
  /** Every one is required (SPEC 5.3). */
  scopes?: readonly Scope[];
  /** Capability a `developer` key lacks (SPEC 5.4). */
  notForDeveloperKeys?: boolean;
  /** Sessions: roles allowed (SPEC 5.7). */
  roles?: readonly Role[];
  /**
   * SPEC 4 common rules: creations require the Idempotency-Key header (`true`, checked before the body is
   * read). `optional`: the handler checks it only when sent; declared so /openapi.json documents it.
   */
  idempotencyKey?: boolean | 'optional';
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export function requireScopes(principal: ApiKeyPrincipal, scopes: readonly Scope[]): void {
  const missing = scopes.filter((s) => !principal.scopes.has(s));
  if (missing.length > 0) {
    throw new ApiError('insufficient_scope', `The API key lacks the scope ${missing.join(', ')}.`);
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
