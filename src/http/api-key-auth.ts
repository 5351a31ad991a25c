import type { AppContext } from '../commands/context.ts';
import { chainSuspendedText } from '../commands/tenancy.ts';
import { livemodeOfKey } from '../crypto/secrets.ts';
import { constantQuery } from '../db/constant-query.ts';
import type { AccessProfile, ApiKeyPrincipal, Authenticator, Scope } from './auth.ts';
import { AUTH_MESSAGES } from './auth-messages.ts';
import { liveCredentialRow } from './credential-row.ts';
import { ApiError } from './errors.ts';

interface KeyRow {
  id: string;
  secret_sha256: string;
  tenant_id: string;
  livemode: boolean;
  scopes: string[];
  access_profile: AccessProfile;
  revoked_at: Date | null;
  suspended: boolean;
}

/**
 * Constant text: the lookup runs on every keyed request (issue 14). Exported for the benchmarks' floor
 * server (bench/floor-server.ts), which sends the same statement.
 */
export const KEY_BY_DIGEST_SQL = `
  select k.id, k.secret_sha256, k.tenant_id, k.livemode, k.scopes, k.access_profile, k.revoked_at,
    ${chainSuspendedText('t.ancestor_ids')} as suspended
  from api_keys k join tenants t on t.id = k.tenant_id
  where k.secret_sha256 = $1`;
const keyByDigest = constantQuery<KeyRow>(KEY_BY_DIGEST_SQL);

/**
 * `X-API-Key` (SPEC 5.1): one indexed lookup by digest in the inline `api_keys` read model, joined with the
 * tenant's ancestors so a suspended tenant or ancestor blocks the key on the very next request (SPEC 5.5).
 */
export function createApiKeyAuthenticator(
  ctx: Pick<AppContext, 'db' | 'referenceReadsCaughtUp'>,
): Authenticator<ApiKeyPrincipal> {
  return async (request) => {
    const key = request.headers['x-api-key'];
    if (typeof key !== 'string' || key.length === 0) {
      // Issue 23 item 1.7: say which credential the API takes when a panel session token was sent instead.
      const bearer = /^bearer\s/i.test(String(request.headers.authorization ?? ''));
      throw new ApiError('unauthorized', bearer ? AUTH_MESSAGES.bearerOnApi : AUTH_MESSAGES.missingKey);
    }
    const claimedLivemode = key.length > 200 ? undefined : livemodeOfKey(key);
    if (claimedLivemode === undefined) throw new ApiError('unauthorized', AUTH_MESSAGES.malformedKey);
    const row = await liveCredentialRow(ctx, key, {
      lookup: async (digest) => (await keyByDigest(ctx.db, [digest])).rows,
      storedDigest: (r) => r.secret_sha256,
      // Never issued, revoked and of the other mode read alike.
      live: (r) => r.revoked_at === null && r.livemode === claimedLivemode,
      unknownMessage: AUTH_MESSAGES.unknownKey,
    });
    return {
      kind: 'api_key',
      keyId: row.id,
      tenantId: row.tenant_id,
      livemode: row.livemode,
      scopes: new Set(row.scopes as Scope[]),
      accessProfile: row.access_profile,
      actor: `api_key:${row.id}`,
    };
  };
}
