import { DomainError } from '../../aggregates/decider.ts';
import { PASSWORD_MAX_BYTES, PASSWORD_MIN_LENGTH, passwordSchema } from '../../contract/password.ts';

/** The password rule (src/contract/password.ts) as a command checks it: 422 naming `password`. */
export function checkPassword(password: string): void {
  if (!passwordSchema.safeParse(password).success) {
    throw new DomainError(
      'validation_error',
      `The password needs ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_BYTES} bytes.`,
      { param: 'password' },
    );
  }
}
