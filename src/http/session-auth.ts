import { sql } from 'kysely';
import type { AppContext } from '../commands/context.ts';
import { tenantSuspendedText } from '../commands/tenancy.ts';
import { digestsEqual, SESSION_TOKEN_PREFIX, sha256Hex } from '../crypto/secrets.ts';
import type { Authenticator, Role, SessionPrincipal } from './auth.ts';
import { AUTH_MESSAGES } from './auth-messages.ts';
import { ApiError } from './errors.ts';

interface SessionRow {
  id: string;
  token_sha256: string;
  user_id: string;
  expires_at: Date;
  revoked_at: Date | null;
  role: Role;
  tenant_id: string | null;
  user_status: 'active' | 'suspended';
  suspended: boolean;
}

/**
 * `Authorization: Bearer <token>` (SPEC 5.6): the session must exist, be unrevoked and unexpired, and its
 * user active. Logout, password change, user suspension and tenant-subtree suspension revoke sessions in
 * the inline read model; the live checks here close the window of a concurrent login.
 */
export function createSessionAuthenticator(
  ctx: Pick<AppContext, 'db' | 'now' | 'referenceReadsCaughtUp'>,
): Authenticator<SessionPrincipal> {
  return async (request) => {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer ([A-Za-z0-9_-]{1,200})$/.exec(header) : null;
    const token = match?.[1];
    if (!token?.startsWith(SESSION_TOKEN_PREFIX)) {
      // Issue 23 item 1.7: a missing header, an API key sent to the panel and a malformed token read apart.
      const message =
        header === undefined || header === ''
          ? request.headers['x-api-key'] === undefined
            ? AUTH_MESSAGES.missingSession
            : AUTH_MESSAGES.apiKeyOnPanel
          : AUTH_MESSAGES.malformedSession;
      throw new ApiError('unauthorized', message);
    }
    const digest = sha256Hex(token);
    // Async projections: a logout, suspension or password change before this request counts at once.
    await ctx.referenceReadsCaughtUp?.();
    const { rows } = await sql<SessionRow>`
      select s.id, s.token_sha256, s.user_id, s.expires_at, s.revoked_at, u.role, u.tenant_id, u.status as user_status,
        ${sql.raw(tenantSuspendedText('u.tenant_id'))} as suspended
      from sessions s join users u on u.id = s.user_id
      where s.token_sha256 = ${digest}`.execute(ctx.db);
    const row = rows[0];
    if (!row || !digestsEqual(row.token_sha256, digest))
      throw new ApiError('unauthorized', AUTH_MESSAGES.unknownSession);
    if (row.revoked_at !== null || new Date(row.expires_at) <= ctx.now() || row.user_status !== 'active') {
      throw new ApiError('unauthorized', AUTH_MESSAGES.unknownSession);
    }
    if (row.suspended) throw new ApiError('tenant_suspended');
    return {
      kind: 'session',
      sessionId: row.id,
      userId: row.user_id,
      role: row.role,
      tenantId: row.tenant_id,
      actor: `user:${row.user_id}`,
    };
  };
}
