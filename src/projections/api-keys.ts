import { apiKeyEvents } from '../aggregates/api-key.ts';
import { decodedProjection } from './decoded-projection.ts';

/**
 * The `api_keys` read model that `X-API-Key` authentication looks up by digest (src/http/api-key-auth.ts).
 * Inline, so a revocation refuses the key on the very next request.
 */
export const apiKeysProjection = decodedProjection({
  name: 'api_keys',
  definitions: apiKeyEvents,
  eventTypes: ['ApiKey.Issued', 'ApiKey.Revoked'],
  tables: ['api_keys'],

  async apply(event, at, trx) {
    switch (event.type) {
      case 'ApiKey.Issued': {
        const d = event.data;
        await trx
          .insertInto('api_keys')
          .values({
            id: d.key_id,
            secret_sha256: d.secret_sha256,
            prefix: d.prefix,
            tenant_id: d.tenant_id,
            livemode: d.livemode,
            name: d.name,
            scopes: d.scopes,
            access_profile: d.access_profile,
            created_by: d.created_by,
            created_at: at,
            revoked_at: null,
          })
          .execute();
        return;
      }
      case 'ApiKey.Revoked': {
        // The decider never revokes twice; the guard keeps the first revocation's time regardless.
        await trx
          .updateTable('api_keys')
          .set({ revoked_at: at })
          .where('id', '=', event.data.key_id)
          .where('revoked_at', 'is', null)
          .execute();
        return;
      }
    }
  },
});
