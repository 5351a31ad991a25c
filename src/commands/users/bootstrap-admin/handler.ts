import { isDomainError } from '../../../aggregates/decider.ts';
import type { Logger } from '../../../logger.ts';
import { createUser } from '../create/handler.ts';
import type { IdentityDeps } from '../identity-deps.ts';
import type { UserView } from '../user-view.ts';

export interface BootstrapConfig {
  BOOTSTRAP_ADMIN_EMAIL?: string | undefined;
  BOOTSTRAP_ADMIN_PASSWORD?: string | undefined;
}

/**
 * SPEC 5: on start, with no user at all and both variables set, create that super_admin (no tenant).
 * Idempotent across restarts (a user exists) and safe with instances starting at once (the e-mail claim
 * lets one User.Created through). Exactly one instance logs the creation; the password is never logged.
 */
export async function bootstrapAdmin(
  deps: IdentityDeps,
  config: BootstrapConfig,
  logger: Pick<Logger, 'info'>,
): Promise<UserView | undefined> {
  const email = config.BOOTSTRAP_ADMIN_EMAIL;
  const password = config.BOOTSTRAP_ADMIN_PASSWORD;
  if (!email || !password) return undefined;
  const anyUser = await deps.db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  if (anyUser) return undefined;
  try {
    const { user, created } = await createUser(
      deps,
      { email, password, role: 'super_admin', tenant_id: null },
      { actor: 'system:bootstrap' },
    );
    if (created) logger.info({ user_id: user.id, role: user.role }, 'bootstrap administrator created');
    return user;
  } catch (error) {
    // Another start claimed the e-mail with another password: that administrator stands.
    if (isDomainError(error) && error.code === 'conflict') return undefined;
    throw error;
  }
}
