import { ApiError } from '../../../aggregates/errors.ts';
import { revokeApiKey as revokeApiKeyOperation } from '../../../contract/operations/api-keys.ts';
import { bind } from '../../bind.ts';
import { isInTree } from '../../tenancy.ts';
import { identityDeps } from '../../users/identity-deps.ts';
import { loadApiKey } from '../api-key-record.ts';
import { viewOf } from '../api-key-view.ts';
import { revokeApiKey } from './handler.ts';

/** A key of the caller's tree (another tree: 404). */
export const revokeRoute = bind(revokeApiKeyOperation, async (call, ctx) => {
  const deps = identityDeps(ctx);
  const record = await loadApiKey(deps, call.params.id);
  if (!record || !(await isInTree(ctx.db, call.session(), record.tenant_id))) throw new ApiError('not_found');
  const revoked = await revokeApiKey(deps, record.id, call.metadata());
  return { data: await viewOf(ctx, revoked) };
});
