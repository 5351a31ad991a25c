import bcrypt from 'bcrypt';
import { DomainError } from '../../../aggregates/decider.ts';
import { userDecider, userStream } from '../../../aggregates/user.ts';
import { PASSWORD_MAX_BYTES } from '../../../contract/password.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { handleCommand } from '../../command-handler.ts';
import { foldStream } from '../../fold-stream.ts';
import type { IdentityDeps } from '../identity-deps.ts';
import { checkPassword } from '../password-rule.ts';

/**
 * SPEC 5.6: a new password revokes every session of the user. Issue 23 item 2.4 (OWASP ASVS 4.0 V2.1.6):
 * `currentPassword` is given on a self-change and must verify against the stored hash, else the attempt
 * is recorded (User.PasswordChangeRefused, audited `user.password_change_refused`) and refused with
 * `422 validation_error` naming `current_password`. A super_admin resetting another user's password gives
 * none (SPEC 5.7).
 */
export async function changePassword(
  deps: IdentityDeps,
  userId: string,
  password: string,
  metadata: EventMetadata,
  currentPassword?: string,
): Promise<void> {
  checkPassword(password);
  let verified_hash: string | undefined;
  if (currentPassword !== undefined) {
    const state = await foldStream(deps, userDecider, userStream(userId));
    // A missing or suspended user is refused by the decider below, as without a current password.
    if (state.status === 'active') {
      // Stored passwords are at most 72 bytes; bcrypt would compare only a longer one's first 72.
      const matches =
        Buffer.byteLength(currentPassword, 'utf8') <= PASSWORD_MAX_BYTES &&
        (await bcrypt.compare(currentPassword, state.passwordHash));
      if (!matches) {
        await handleCommand(
          deps,
          userDecider,
          userStream(userId),
          { kind: 'refuse_password_change' },
          { metadata, retryOnConflict: true },
        );
        throw new DomainError('validation_error', 'The current password is wrong.', {
          param: 'current_password',
        });
      }
      verified_hash = state.passwordHash;
    }
  }
  const password_hash = await bcrypt.hash(password, deps.bcryptCost);
  // Re-deciding after a concurrent append is safe: the decision depends on the stream alone (and a
  // password changed meanwhile no longer matches `verified_hash`).
  await handleCommand(
    deps,
    userDecider,
    userStream(userId),
    { kind: 'change_password', password_hash, ...(verified_hash === undefined ? {} : { verified_hash }) },
    { metadata, retryOnConflict: true },
  );
}
