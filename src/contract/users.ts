import { z } from 'zod';
import { USER_ROLES } from '../aggregates/user.ts';

/**
 * The HTTP contract of panel users (SPEC 2.7 roles, 5.7): the view and the request bodies of their routes.
 * Shared by the routes and the SDK (issue 15 item 3) so that neither can drift from the other; pure (zod
 * only), because the SDK bundles it.
 */

/** Never carries the password hash. */
export const userDto = z
  .object({
    id: z.string(),
    email: z.string(),
    role: z.enum(USER_ROLES),
    tenant_id: z.string().nullable(),
    status: z.enum(['active', 'suspended']),
  })
  .meta({ id: 'User' });

/*
 * The password rule (12 to 72 bytes, bcrypt's limit) is src/contract/password.ts, which measures bytes with
 * Node's Buffer: the server's operations pass it in (src/contract/operations/users.ts); the SDK passes a
 * plain string and leaves that one rule to the server (422 validation_error, param `password`).
 */
export const newUserBody = <P extends z.ZodType<string>>(password: P) =>
  z.strictObject({
    email: z.string().min(1).max(254),
    password,
    role: z.enum(USER_ROLES),
    /** null only for a super_admin bound to no tenant. */
    tenant_id: z.string().min(1).max(64).nullable(),
  });

/**
 * Issue 23 item 2.4 (OWASP ASVS 4.0 V2.1.6): `current_password` is required to change one's own password
 * and refused when a super_admin resets another user's (422 validation_error naming it, either way).
 */
export const newPasswordBody = <P extends z.ZodType<string>>(password: P) =>
  z.strictObject({
    password,
    current_password: z.string().min(1).max(256).optional().meta({
      description: 'Your current password: required for your own password, refused for another user’s.',
    }),
  });
