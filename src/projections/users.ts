import { userEvents } from '../aggregates/user.ts';
import { decodedProjection } from './decoded-projection.ts';

/**
 * `users` (inline): what login and the session authenticator read. One row per user stream, equal to the
 * fold of that stream; the e-mail is stored normalized, as the claim stream hashes it.
 */
export const usersProjection = decodedProjection({
  name: 'users',
  definitions: userEvents,
  eventTypes: ['User.Created', 'User.PasswordChanged', 'User.Suspended', 'User.Reactivated'],
  // No other table references users (migration 0003), so this read model rebuilds alone.
  tables: ['users'],
  async apply(event, at, trx) {
    switch (event.type) {
      case 'User.Created': {
        const u = event.data;
        await trx
          .insertInto('users')
          .values({
            id: u.user_id,
            email: u.email,
            role: u.role,
            tenant_id: u.tenant_id,
            status: 'active',
            password_hash: u.password_hash,
            created_at: at,
            updated_at: at,
          })
          .execute();
        return;
      }
      case 'User.PasswordChanged':
        await trx
          .updateTable('users')
          .set({ password_hash: event.data.password_hash, updated_at: at })
          .where('id', '=', event.data.user_id)
          .execute();
        return;
      case 'User.Suspended':
      case 'User.Reactivated':
        await trx
          .updateTable('users')
          .set({ status: event.type === 'User.Suspended' ? 'suspended' : 'active', updated_at: at })
          .where('id', '=', event.data.user_id)
          .execute();
        return;
    }
  },
});
