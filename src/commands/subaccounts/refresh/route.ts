import { refreshSubaccount as refreshOperation } from '../../../contract/operations/subaccounts.ts';
import { bind } from '../../bind.ts';
import { viewOfLoaded } from '../record.ts';
import { refreshSubaccount } from './handler.ts';

/** SPEC 3.6: the record after a consult (or as it is, when nothing needs one). */
export const refreshRoute = bind(refreshOperation, async (call, ctx) => {
  const loaded = await refreshSubaccount(ctx, call.params.id, call.metadata());
  return { data: await viewOfLoaded(ctx.config, loaded) };
});
