import { getPixAutomaticAuthorization } from '../../../../contract/operations/pix-automatic.ts';
import { bind } from '../../../bind.ts';
import { readableAuthorization } from '../load.ts';
import { toAuthorizationView } from '../view.ts';

/** SPEC 4.11: one authorization of the key's tree and mode, folded from its stream (a local read). */
export const getRoute = bind(getPixAutomaticAuthorization, async (call, ctx) => ({
  data: toAuthorizationView(await readableAuthorization(ctx, call.apiKey(), call.params.id)),
}));
