import { z } from 'zod';
import { USER_ROLES } from '../aggregates/user.ts';

/**
 * The HTTP contract of panel sessions (SPEC 5.6, 5.9): the login body and its answer.
 * Shared by the routes and the SDK (issue 15 item 3) so that neither can drift from the other; pure (zod
 * only), because the SDK bundles it.
 */

/** SPEC 5.9 leaves the login body to us: exactly these two fields. */
export const loginBody = z.strictObject({
  email: z.string().min(1).max(254),
  password: z.string().min(1).max(1024),
});

export const sessionCreated = z
  .object({
    token: z.string().meta({ description: 'Bearer token for the panel API; shown only here.' }),
    expires_at: z.iso.datetime().meta({ description: '8 hours after login.' }),
    user: z.object({
      id: z.string(),
      email: z.string(),
      role: z.enum(USER_ROLES),
      tenant_id: z.string().nullable(),
    }),
  })
  .meta({ id: 'SessionCreated' });
