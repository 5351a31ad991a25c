import { providerEvents, providerFacts } from '../aggregates/provider.ts';
import { decodedProjection } from './decoded-projection.ts';

/**
 * The `providers` read model, inline because routing reads it for every new charge (SPEC 2.8) and the
 * panel lists what it just saved. Holds only the credentials' ciphertext, never the secret.
 */
export const providersProjection = decodedProjection({
  name: 'providers',
  definitions: providerEvents,
  eventTypes: ['Provider.Created', 'Provider.Updated'],
  tables: ['providers'],

  async apply(event, at, trx) {
    switch (event.type) {
      case 'Provider.Created': {
        // The row is the creation's facts, read with the defaults of an older event.
        const { provider_id, ...facts } = providerFacts(event.data);
        await trx
          .insertInto('providers')
          .values({ id: provider_id, ...facts, enabled: true, created_at: at, updated_at: at })
          .execute();
        return;
      }
      case 'Provider.Updated': {
        const d = event.data;
        await trx
          .updateTable('providers')
          .set({
            updated_at: at,
            ...(d.name !== undefined ? { name: d.name } : {}),
            ...(d.enabled !== undefined ? { enabled: d.enabled } : {}),
            ...(d.enabled_methods !== undefined ? { enabled_methods: d.enabled_methods } : {}),
            ...(d.credentials_ciphertext !== undefined
              ? { credentials_ciphertext: d.credentials_ciphertext }
              : {}),
            ...(d.payment_host !== undefined ? { payment_host: d.payment_host } : {}),
            ...(d.api_host !== undefined ? { api_host: d.api_host } : {}),
            ...(d.boleto_refund_payout !== undefined ? { boleto_refund_payout: d.boleto_refund_payout } : {}),
          })
          .where('id', '=', d.provider_id)
          .execute();
        return;
      }
    }
  },
});
