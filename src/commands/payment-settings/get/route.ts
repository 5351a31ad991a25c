import { getPaymentSettings as getPaymentSettingsOperation } from '../../../contract/operations/payment-settings.ts';
import { bind } from '../../bind.ts';
import { getPaymentSettings } from '../view.ts';

/** SPEC 4.14: the effective control, read from its stream at every call. No handler: nothing is decided. */
export const getRoute = bind(getPaymentSettingsOperation, async (_call, ctx) => ({
  data: await getPaymentSettings({ store: ctx.store, registry: ctx.events }, ctx.config),
}));
