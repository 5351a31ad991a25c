import bcrypt from 'bcrypt';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { DomainError, isDomainError } from '../aggregates/decider.ts';
import {
  normalizeEmail,
  type UserCreatedData,
  type UserEmailEvent,
  type UserRole,
  userDecider,
  userEmailDecider,
  userEmailStream,
  userStream,
} from '../aggregates/user.ts';
import type { Database } from '../db/schema.ts';
import type { EventRegistry } from '../events/event-registry.ts';
import { type EventMetadata, type EventStore, WrongExpectedVersionError } from '../events/event-store.ts';
import { newId } from '../ids.ts';
import type { Logger } from '../logger.ts';
import { type CommandDeps, handleCommand } from './command-handler.ts';
import { foldStream } from './fold-stream.ts';
import { loadTenant } from './tenants.ts';

/** What the identity commands need: the event store, the read models they consult, and the bcrypt cost. */
export interface IdentityDeps extends CommandDeps {
  db: Kysely<Database>;
  bcryptCost: number;
}

/** Reads `now` through the context at each call, so a test clock set on the context reaches the deciders. */
export function identityDeps(ctx: {
  store: EventStore;
  events: EventRegistry;
  db: Kysely<Database>;
  now: () => Date;
  config: { BCRYPT_COST: number };
}): IdentityDeps {
  return {
    store: ctx.store,
    registry: ctx.events,
    db: ctx.db,
    now: () => ctx.now(),
    bcryptCost: ctx.config.BCRYPT_COST,
  };
}

/** bcrypt reads only the first 72 bytes; a longer password would be silently truncated, so it is refused. */
export const PASSWORD_MAX_BYTES = 72;
export const PASSWORD_MIN_LENGTH = 12;

export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH)
  .refine((p) => Buffer.byteLength(p, 'utf8') <= PASSWORD_MAX_BYTES, {
    message: `at most ${PASSWORD_MAX_BYTES} bytes (bcrypt ignores the rest)`,
  });

const emailSchema = z.email().max(254);

function checkPassword(password: string): void {
  if (!passwordSchema.safeParse(password).success) {
    throw new DomainError(
      'validation_error',
      `The password needs ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_BYTES} bytes.`,
      { param: 'password' },
    );
  }
}

export interface NewUser {
  email: string;
  password: string;
  role: UserRole;
  tenant_id: string | null;
}

export interface UserView {
  id: string;
  email: string;
  role: UserRole;
  tenant_id: string | null;
}

export interface CreateUserResult {
  user: UserView;
  /** Whether this call appended User.Created (false when a concurrent or earlier identical request did). */
  created: boolean;
}

const view = (u: UserCreatedData): UserView => ({
  id: u.user_id,
  email: u.email,
  role: u.role,
  tenant_id: u.tenant_id,
});

/**
 * Appends the User.Created a claim carries, unless the user stream already has it (the same facts again are
 * a no-op in the state table). Safe to race: whoever loses finds the stream created. Returns whether this
 * call appended it.
 */
async function completeClaim(deps: IdentityDeps, claim: UserCreatedData, metadata: EventMetadata) {
  try {
    const result = await handleCommand(
      deps,
      userDecider,
      userStream(claim.user_id),
      { kind: 'create', user: claim },
      { metadata },
    );
    return result.events.length > 0;
  } catch (error) {
    if (error instanceof WrongExpectedVersionError) return false;
    throw error;
  }
}

/** The claim of an e-mail, with the metadata a completion is recorded under: the claimer's, caused by it. */
async function readClaim(deps: IdentityDeps, email: string) {
  const [recorded] = await deps.store.read(userEmailStream(email));
  if (!recorded) return undefined;
  const event = deps.registry.decode(recorded) as UserEmailEvent;
  const metadata: EventMetadata = { ...recorded.metadata, causation_id: recorded.id };
  return { user: event.data, metadata };
}

/**
 * Creates a panel user (SPEC 5.6, 5.7). The e-mail is claimed first (`no_stream` on `user_email-<sha256>`),
 * and the claim carries the whole User.Created payload: if the process dies between the two appends, the
 * next request for that e-mail completes the user from the claim (DESIGN.md "Uniqueness uses reservation
 * streams"). A request for a claimed e-mail answers `409 conflict`, except a retry of the claiming request
 * itself (same role, tenant and password), which answers the user it created.
 */
export async function createUser(
  deps: IdentityDeps,
  input: NewUser,
  metadata: EventMetadata,
): Promise<CreateUserResult> {
  const email = normalizeEmail(input.email);
  if (!emailSchema.safeParse(email).success) {
    throw new DomainError('validation_error', 'The e-mail is invalid.', { param: 'email' });
  }
  checkPassword(input.password);
  if (input.tenant_id !== null) {
    // Checked before the claim (a claim for a user of no tenant would never complete), on the tenant's
    // stream: in async mode the read model may not have a tenant created a moment ago.
    const tenant = input.tenant_id.startsWith('ten_') ? await loadTenant(deps, input.tenant_id) : undefined;
    if (!tenant) throw new DomainError('validation_error', 'No such tenant.', { param: 'tenant_id' });
  }
  const user: UserCreatedData = {
    user_id: newId('usr'),
    email,
    role: input.role,
    tenant_id: input.tenant_id,
    password_hash: await bcrypt.hash(input.password, deps.bcryptCost),
  };

  try {
    await handleCommand(
      deps,
      userEmailDecider,
      userEmailStream(email),
      { kind: 'claim', user },
      { metadata },
    );
  } catch (error) {
    const lostClaim =
      error instanceof WrongExpectedVersionError || (isDomainError(error) && error.code === 'conflict');
    if (!lostClaim) throw error;
    const claim = await readClaim(deps, email);
    if (!claim) throw error;
    const created = await completeClaim(deps, claim.user, claim.metadata);
    // A retry of the claiming request (its ids and salt differ, its facts do not) answers the same user.
    const sameRequest =
      claim.user.role === input.role &&
      claim.user.tenant_id === input.tenant_id &&
      (await bcrypt.compare(input.password, claim.user.password_hash));
    if (!sameRequest) throw new DomainError('conflict', 'This e-mail is already in use.');
    return { user: view(claim.user), created };
  }
  return { user: view(user), created: await completeClaim(deps, user, metadata) };
}

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

/** SPEC 7 `cannot_suspend_self`: a user acting on their own account cannot suspend it. */
export async function suspendUser(deps: IdentityDeps, userId: string, metadata: EventMetadata) {
  if (metadata.actor === `user:${userId}`) {
    throw new DomainError('cannot_suspend_self', 'You cannot suspend your own user.');
  }
  await handleCommand(
    deps,
    userDecider,
    userStream(userId),
    { kind: 'suspend' },
    { metadata, retryOnConflict: true },
  );
}

export async function reactivateUser(deps: IdentityDeps, userId: string, metadata: EventMetadata) {
  await handleCommand(
    deps,
    userDecider,
    userStream(userId),
    { kind: 'reactivate' },
    { metadata, retryOnConflict: true },
  );
}

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
