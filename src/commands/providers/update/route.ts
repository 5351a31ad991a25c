import { updateProvider as updateProviderOperation } from '../../../contract/operations/providers.ts';
import { bind } from '../../bind.ts';
import { refuseMatrixChange } from '../../subaccounts/guard.ts';
import { providerDeps } from '../deps.ts';
import { updateProvider } from './handler.ts';

/** SPEC 4.14: a provider's changeable fields; new charges only. */
export const updateRoute = bind(updateProviderOperation, async (call, ctx) => {
  const b = call.body;
  // Issue 28: a marketplace's matrix key stays while it has live subaccount links (409).
  await refuseMatrixChange(ctx, call.params.id, b.credentials);
  const provider = await updateProvider(
    providerDeps(ctx),
    call.params.id,
    {
      name: b.name,
      enabled: b.enabled,
      enabledMethods: b.enabled_methods,
      credentials: b.credentials,
      paymentHost: b.payment_host,
      apiHost: b.api_host,
      boletoRefundPayout: b.boleto_refund_payout,
    },
    call.metadata(),
  );
  return { data: provider };
});
