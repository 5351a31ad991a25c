import type { UserRole } from '../../aggregates/user.ts';

/** A user as creation and login answer it: never the password hash. */
export interface UserView {
  id: string;
  email: string;
  role: UserRole;
  tenant_id: string | null;
}
