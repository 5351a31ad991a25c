import bcrypt from 'bcrypt';
import { sql } from 'kysely';
import { DomainError } from '../../../aggregates/decider.ts';
import { type SessionState, sessionDecider, sessionStream } from '../../../aggregates/session.ts';
import { normalizeEmail, type UserRole } from '../../../aggregates/user.ts';
import { PASSWORD_MAX_BYTES } from '../../../contract/password.ts';
import { randomSecret, SESSION_TOKEN_PREFIX, sha256Hex } from '../../../crypto/secrets.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { newId } from '../../../ids.ts';
import { handleCommand } from '../../command-handler.ts';
import { tenantSuspendedText } from '../../tenancy.ts';
import type { IdentityDeps } from '../../users/identity-deps.ts';
import type { UserView } from '../../users/user-view.ts';

export interface LoginResult {
  /** Shown once; only its SHA-256 digest is stored. */
  token: string;
  expires_at: string;
  user: UserView;
}

/**
 * A well-formed bcrypt hash no password matches, at the configured cost: comparing against it takes as long
 * as a real comparison, so an unknown e-mail answers in the same time as a wrong password.
 */
function decoyHash(cost: number): string {
  return `$2b$${String(cost).padStart(2, '0')}$${'N'.repeat(53)}`;
}

interface UserRow {
  id: string;
  email: string;
  role: UserRole;
  tenant_id: string | null;
  status: 'active' | 'suspended';
  password_hash: string;
}

const invalidCredentials = () => new DomainError('invalid_credentials', 'E-mail or password is wrong.');

/**
 * Panel login (SPEC 5.6, 5.9, 7). Exactly one bcrypt comparison whatever the outcome; unknown e-mail, wrong
 * password and suspended user all answer `401 invalid_credentials`. A user whose tenant or an ancestor is
 * suspended gets `403 tenant_suspended`, but only after the password matched, so it reveals nothing new.
 */
export async function login(
  deps: IdentityDeps,
  input: { email: string; password: string },
  metadata: EventMetadata,
): Promise<LoginResult> {
  const user = await deps.db
    .selectFrom('users')
    .select(['id', 'email', 'role', 'tenant_id', 'status', 'password_hash'])
    .where(sql<string>`lower(email)`, '=', normalizeEmail(input.email))
    .executeTakeFirst();
  const matches = await bcrypt.compare(input.password, user?.password_hash ?? decoyHash(deps.bcryptCost));
  // bcrypt ignores bytes past 72: a longer attempt must not pass on its first 72 bytes.
  const fits = Buffer.byteLength(input.password, 'utf8') <= PASSWORD_MAX_BYTES;
  if (!user || !matches || !fits || user.status !== 'active') throw invalidCredentials();

  // The comparison took a while: re-read, so a password change or suspension committed meanwhile wins.
  const { rows } = await sql<Pick<UserRow, 'status' | 'password_hash'> & { tenant_suspended: boolean }>`
    select u.status, u.password_hash, ${sql.raw(tenantSuspendedText('u.tenant_id'))} as tenant_suspended
    from users u where u.id = ${user.id}`.execute(deps.db);
  const current = rows[0];
  if (current?.status !== 'active' || current.password_hash !== user.password_hash)
    throw invalidCredentials();
  if (current.tenant_suspended) {
    throw new DomainError('tenant_suspended', 'The tenant or one of its ancestors is suspended.');
  }

  const token = randomSecret(SESSION_TOKEN_PREFIX);
  const sessionId = newId('ses');
  const result = await handleCommand(
    deps,
    sessionDecider,
    sessionStream(sessionId),
    { kind: 'start', session_id: sessionId, user_id: user.id, token_sha256: sha256Hex(token) },
    { metadata: { ...metadata, actor: `user:${user.id}`, tenant_id: user.tenant_id } },
  );
  return {
    token,
    expires_at: startedSession(result.state).expires_at,
    user: { id: user.id, email: user.email, role: user.role, tenant_id: user.tenant_id },
  };
}

function startedSession(state: SessionState) {
  if (state.status === 'none') throw new Error('a started session has no state');
  return state.session;
}
