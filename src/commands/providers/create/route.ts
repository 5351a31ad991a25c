import { createProvider as createProviderOperation } from '../../../contract/operations/providers.ts';
import { Answer, bind } from '../../bind.ts';
import { providerDeps } from '../deps.ts';
import { createProvider } from './handler.ts';

/** SPEC 4.14: a provider is created (201). */
export const createRoute = bind(createProviderOperation, async (call, ctx) => {
  const b = call.body;
  const { provider } = await createProvider(
    providerDeps(ctx),
    {
      name: b.name,
      kind: b.kind,
      environment: b.environment,
      enabledMethods: b.enabled_methods,
      isMarketplace: b.is_marketplace,
      credentials: b.credentials,
      paymentHost: b.payment_host,
      apiHost: b.api_host,
      boletoRefundPayout: b.boleto_refund_payout,
    },
    call.metadata(),
  );
  return new Answer(201, { data: provider });
});
