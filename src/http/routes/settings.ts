import type { AppContext } from '../../commands/context.ts';
import { getPaymentSettings, updatePaymentSettings } from '../../commands/payment-settings.ts';
import { dataEnvelope, errorResponses } from '../../contract/envelopes.ts';
import { paymentSettings, updatePaymentSettingsBody } from '../../contract/settings.ts';
import { sessionPrincipal } from '../auth.ts';
import { eventMetadata } from '../request-metadata.ts';
import type { HttpServer } from '../server.ts';

/** The global production payments control (SPEC 2.7, 4.14, 5.8): super_admin sessions only. */
export function registerSettingsRoutes(app: HttpServer, ctx: AppContext): void {
  // Built per request: the store may be replaced (tests) and the setting is never cached.
  const deps = () => ({ store: ctx.store, registry: ctx.events, now: ctx.now });
  const access = { auth: 'session', roles: ['super_admin'] } as const;

  app.get(
    '/admin/settings/payments',
    {
      config: { access },
      schema: {
        operationId: 'getPaymentSettings',
        summary: 'Read the production payments control',
        description: 'super_admin only. 503 payment_settings_unavailable when it cannot be read.',
        response: { 200: dataEnvelope(paymentSettings), ...errorResponses(401, 403, 429, 503) },
      },
    },
    async () => ({ data: await getPaymentSettings(deps(), ctx.config) }),
  );

  app.patch(
    '/admin/settings/payments',
    {
      config: { access },
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
    },
    async (request) => {
      const principal = sessionPrincipal(request);
      const data = await updatePaymentSettings(
        deps(),
        ctx.config,
        { allowLivePayments: request.body.allow_live_payments, updatedBy: principal.userId },
        eventMetadata(request),
      );
      return { data };
    },
  );
}
