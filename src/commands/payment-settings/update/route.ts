import { updatePaymentSettings as updatePaymentSettingsOperation } from '../../../contract/operations/payment-settings.ts';
import { bind } from '../../bind.ts';
import { updatePaymentSettings } from './handler.ts';

/** SPEC 4.14: production payments on or off, at once. */
export const updateRoute = bind(updatePaymentSettingsOperation, async (call, ctx) => {
  const principal = call.session();
  // Built per request: the store may be replaced (tests) and the setting is never cached.
  const data = await updatePaymentSettings(
    { store: ctx.store, registry: ctx.events, now: ctx.now },
    ctx.config,
    { allowLivePayments: call.body.allow_live_payments, updatedBy: principal.userId },
    call.metadata(),
  );
  return { data };
});
