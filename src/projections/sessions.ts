import { sql } from 'kysely';
import { sessionEvents } from '../aggregates/session.ts';
import { tenantEvents } from '../aggregates/tenant.ts';
import { userEvents } from '../aggregates/user.ts';
import { inSubtreeSql } from '../db/tenancy-sql.ts';
import { decodedProjection } from './decoded-projection.ts';

/**
 * `sessions` (inline; SPEC 5.6): looked up by token digest on every panel request. Revoked on logout, on a
 * password change or user suspension (all that user's sessions) and on a tenant suspension (every session
 * of a user in the suspended subtree). Revocation is permanent: reactivations restore nothing. The first
 * revocation wins, so the recorded reason (`logout`, `password_changed`, `user_suspended`,
 * `tenant_suspended`) is the one that actually ended the session.
 */
export const sessionsProjection = decodedProjection({
  name: 'sessions',
  definitions: [...sessionEvents, ...userEvents, ...tenantEvents],
  eventTypes: [
    'Session.Started',
    'Session.Ended',
    'User.PasswordChanged',
    'User.Suspended',
    'Tenant.Suspended',
  ],
  tables: ['sessions'],
  async apply(event, at, trx) {
    switch (event.type) {
      case 'Session.Started': {
        const s = event.data;
        await trx
          .insertInto('sessions')
          .values({
            token_sha256: s.token_sha256,
            id: s.session_id,
            user_id: s.user_id,
            created_at: at,
            expires_at: s.expires_at,
            revoked_at: null,
            revoked_reason: null,
          })
          .execute();
        return;
      }
      case 'Session.Ended':
        await trx
          .updateTable('sessions')
          .set({ revoked_at: at, revoked_reason: event.data.reason })
          .where('id', '=', event.data.session_id)
          .where('revoked_at', 'is', null)
          .execute();
        return;
      case 'User.PasswordChanged':
      case 'User.Suspended':
        await trx
          .updateTable('sessions')
          .set({
            revoked_at: at,
            revoked_reason: event.type === 'User.Suspended' ? 'user_suspended' : 'password_changed',
          })
          .where('user_id', '=', event.data.user_id)
          .where('revoked_at', 'is', null)
          .execute();
        return;
      case 'Tenant.Suspended':
        // SPEC 5.5: suspending a tenant ends the sessions of its whole subtree.
        await sql`
          update sessions s set revoked_at = ${at}, revoked_reason = 'tenant_suspended'
          from users u
          where u.id = s.user_id and s.revoked_at is null and u.tenant_id in (
            select t.id from tenants t where ${inSubtreeSql('t.ancestor_ids', event.data.tenant_id)}
          )`.execute(trx);
        return;
      default:
        return;
    }
  },
});
