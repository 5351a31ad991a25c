import bcrypt from 'bcrypt';
import { z } from 'zod';
import { DomainError, isDomainError } from '../../../aggregates/decider.ts';
import {
  normalizeEmail,
  type UserCreatedData,
  type UserEmailEvent,
  type UserRole,
  userDecider,
  userEmailDecider,
  userEmailStream,
  userStream,
} from '../../../aggregates/user.ts';
import { type EventMetadata, WrongExpectedVersionError } from '../../../events/event-store.ts';
import { newId } from '../../../ids.ts';
import { handleCommand } from '../../command-handler.ts';
import { loadTenant } from '../../tenants/tenant-record.ts';
import type { IdentityDeps } from '../identity-deps.ts';
import { checkPassword } from '../password-rule.ts';
import type { UserView } from '../user-view.ts';

const emailSchema = z.email().max(254);

export interface NewUser {
  email: string;
  password: string;
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
