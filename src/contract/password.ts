import { z } from 'zod';

/**
 * The password rule of panel users (SPEC 5.6): 12 to 72 bytes, bcrypt's limit. The server's user bodies
 * take it (src/contract/operations/users.ts); the SDK sends a plain string and leaves this one rule to the
 * server (422 validation_error, param `password`), since it measures bytes with Node's Buffer.
 */

/** bcrypt reads only the first 72 bytes; a longer password would be silently truncated, so it is refused. */
export const PASSWORD_MAX_BYTES = 72;
export const PASSWORD_MIN_LENGTH = 12;

export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH)
  .refine((p) => Buffer.byteLength(p, 'utf8') <= PASSWORD_MAX_BYTES, {
    message: `at most ${PASSWORD_MAX_BYTES} bytes (bcrypt ignores the rest)`,
  });
