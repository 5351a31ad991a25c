import { refreshPixAutomaticAuthorization } from '../../../../contract/operations/pix-automatic.ts';
import { bind } from '../../../bind.ts';
import { ownAuthorization } from '../load.ts';
import { toAuthorizationView } from '../view.ts';
import { refreshAuthorization } from './handler.ts';

/** SPEC 4.11: a refresh stores state, so only the key's own tenant's (a descendant's: 403 forbidden). */
export const refreshRoute = bind(refreshPixAutomaticAuthorization, async (call, ctx) => {
  const loaded = await ownAuthorization(ctx, call.apiKey(), call.params.id);
  return { data: toAuthorizationView(await refreshAuthorization(ctx, loaded, call.metadata())) };
});
