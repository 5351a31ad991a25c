import { getCheckout } from '../../../contract/operations/checkouts.ts';
import { bind } from '../../bind.ts';
import { readableCheckout, toCheckoutView } from '../record.ts';

/** SPEC 4.9 (4.4's rules): one checkout of the key's tree and mode, folded from its stream. */
export const getRoute = bind(getCheckout, async (call, ctx) => {
  const folded = await readableCheckout(ctx, call.apiKey(), call.params.id);
  return { data: await toCheckoutView(ctx, folded) };
});
