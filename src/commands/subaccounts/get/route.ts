import { getSubaccount } from '../../../contract/operations/subaccounts.ts';
import { bind } from '../../bind.ts';
import { mustLoadSubaccount, viewOfLoaded } from '../record.ts';

/** SPEC 2.7: one link, folded from its stream; token flags recomputed now. */
export const getRoute = bind(getSubaccount, async (call, ctx) => {
  const loaded = await mustLoadSubaccount({ store: ctx.store, registry: ctx.events }, call.params.id);
  return { data: await viewOfLoaded(ctx.config, loaded) };
});
