import type { AppContext } from '../commands/context.ts';
import { digestsEqual, sha256Hex } from '../crypto/secrets.ts';
import { ApiError } from './errors.ts';

/**
 * The read-model row of a presented secret (an API key or a session token), looked up by its SHA-256 once
 * the reference reads have caught up (async projections: an issue, revocation, logout or suspension before
 * this request counts at once). Absent, a digest that does not match in constant time, or not `live`: 401
 * with one text, since a different answer would confirm that the secret once existed. A suspended tenant or
 * ancestor (SPEC 5.5): 403 tenant_suspended.
 */
export async function liveCredentialRow<R extends { readonly suspended: boolean }>(
  ctx: Pick<AppContext, 'referenceReadsCaughtUp'>,
  secret: string,
  credential: {
    readonly lookup: (digest: string) => Promise<readonly R[]>;
    readonly storedDigest: (row: R) => string;
    readonly live: (row: R) => boolean;
    readonly unknownMessage: string;
  },
): Promise<R> {
  const digest = sha256Hex(secret);
  await ctx.referenceReadsCaughtUp?.();
  const row = (await credential.lookup(digest))[0];
  if (!row || !digestsEqual(credential.storedDigest(row), digest) || !credential.live(row))
    throw new ApiError('unauthorized', credential.unknownMessage);
  if (row.suspended) throw new ApiError('tenant_suspended');
  return row;
}
