import { dataEnvelope, errorResponses } from '../envelopes.ts';
import { operation } from '../operation.ts';
import { paymentSettings, updatePaymentSettingsBody } from '../settings.ts';

/** The global production payments control (SPEC 2.7, 4.14, 5.8): super_admin sessions only. */
const access = { auth: 'session', roles: ['super_admin'] } as const;

export const getPaymentSettings = operation({
  method: 'GET',
  path: '/admin/settings/payments',
  access,
  schema: {
    operationId: 'getPaymentSettings',
    summary: 'Read the production payments control',
    description: 'super_admin only. 503 payment_settings_unavailable when it cannot be read.',
    response: { 200: dataEnvelope(paymentSettings), ...errorResponses(401, 403, 429, 503) },
  },
});

export const updatePaymentSettings = operation({
  method: 'PATCH',
  path: '/admin/settings/payments',
  access,
  schema: {
    operationId: 'updatePaymentSettings',
    summary: 'Turn production payments on or off',
    description:
      'super_admin only. Applies at once and overrides ALLOW_LIVE_PAYMENTS for good; audited as PaymentSettings.Updated. ' +
      'On alone it does not unlock real payments: a production charge or refresh also needs the server’s LIVE_PAYMENT_SCOPE_JSON to name it, or ALLOW_UNSCOPED_LIVE_PAYMENTS=true.',
    body: updatePaymentSettingsBody,
    response: {
      200: dataEnvelope(paymentSettings),
      ...errorResponses(400, 401, 403, 413, 422, 429, 503),
    },
  },
  examples: { request: { allow_live_payments: false } },
});
