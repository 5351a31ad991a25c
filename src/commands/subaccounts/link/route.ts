import { linkSubaccount as linkOperation } from '../../../contract/operations/subaccounts.ts';
import { bind } from '../../bind.ts';
import { viewOfLoaded } from '../record.ts';
import { linkSubaccount } from './handler.ts';

/** SPEC 4.14 `/link`: the recovered record (200) once id, document and tokens are verified. */
export const linkRoute = bind(linkOperation, async (call, ctx) => {
  const b = call.body;
  const loaded = await linkSubaccount(
    ctx,
    call.params.id,
    {
      providerReference: b.provider_reference,
      productionToken: b.production_token,
      sandboxToken: b.sandbox_token,
    },
    call.metadata(),
  );
  return { data: await viewOfLoaded(ctx.config, loaded) };
});
