import { revokePixAutomaticAuthorization } from '../../../../contract/operations/pix-automatic.ts';
import { bind } from '../../../bind.ts';
import { ownAuthorization } from '../load.ts';
import { toAuthorizationView } from '../view.ts';
import { revokeAuthorization } from './handler.ts';

/** SPEC 4.11: revokes the consent; only the key's own tenant's (a descendant's: 403 forbidden). */
export const revokeRoute = bind(revokePixAutomaticAuthorization, async (call, ctx) => {
  const loaded = await ownAuthorization(ctx, call.apiKey(), call.params.id);
  return { data: toAuthorizationView(await revokeAuthorization(ctx, loaded, call.metadata())) };
});
