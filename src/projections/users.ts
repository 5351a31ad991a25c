import { sql } from 'kysely';
import { type UserEvent, userEvents } from '../aggregates/user.ts';
import { EventRegistry } from '../events/event-registry.ts';
import type { Projection } from '../events/projection.ts';

const registry = new EventRegistry(userEvents);

/**
 * `users` (inline): what login and the session authenticator read. One row per user stream, equal to the
 * fold of that stream; the e-mail is stored normalized, as the claim stream hashes it.
 */
export const usersProjection: Projection = {
  name: 'users',
  eventTypes: ['User.Created', 'User.PasswordChanged', 'User.Suspended', 'User.Reactivated'],
  async handle(recorded, trx) {
    const event = registry.decode(recorded) as UserEvent;
    const at = recorded.recordedAt;
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
  // No other table references users (migration 0003), so this read model rebuilds alone.
  async reset(trx) {
    await sql`truncate users`.execute(trx);
  },
};
