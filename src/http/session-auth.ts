import { sql } from 'kysely';
import type { AppContext } from '../commands/context.ts';
import { tenantSuspendedText } from '../commands/tenancy.ts';
import { SESSION_TOKEN_PREFIX } from '../crypto/secrets.ts';
import type { Authenticator, Role, SessionPrincipal } from './auth.ts';
import { AUTH_MESSAGES } from './auth-messages.ts';
import { liveCredentialRow } from './credential-row.ts';
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

/** The session of a token digest, with its user's role and whether the user's tenant or an ancestor is suspended. */
async function sessionsByDigest(db: AppContext['db'], digest: string): Promise<SessionRow[]> {
  const { rows } = await sql<SessionRow>`
      select s.id, s.token_sha256, s.user_id, s.expires_at, s.revoked_at, u.role, u.tenant_id, u.status as user_status,
        ${sql.raw(tenantSuspendedText('u.tenant_id'))} as suspended
      from sessions s join users u on u.id = s.user_id
      where s.token_sha256 = ${digest}`.execute(db);
  return rows;
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
    const row = await liveCredentialRow(ctx, token, {
      lookup: (digest) => sessionsByDigest(ctx.db, digest),
      storedDigest: (r) => r.token_sha256,
      live: (r) => r.revoked_at === null && new Date(r.expires_at) > ctx.now() && r.user_status === 'active',
      unknownMessage: AUTH_MESSAGES.unknownSession,
    });
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
