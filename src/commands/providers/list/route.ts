import { PAYMENT_METHODS, type PaymentMethod } from '../../../aggregates/provider.ts';
import { listProviders } from '../../../contract/operations/providers.ts';
import { bind } from '../../bind.ts';
import { listPage } from '../../page.ts';
import { effectiveHosts } from '../record.ts';

/** SPEC 4.14: providers from the read model, oldest first. No handler: nothing is decided. */
export const listRoute = bind(listProviders, async (call, ctx) => {
  const { limit, offset } = call.query;
  const query = ctx.db
    .selectFrom('providers')
    .select((eb) => [
      'id',
      'name',
      'kind',
      'environment',
      'enabled_methods',
      'is_marketplace',
      'enabled',
      eb('credentials_ciphertext', 'is not', null).as('has_credentials'),
      'payment_host',
      'api_host',
      'boleto_refund_payout',
    ]);
  return listPage(query, { limit, offset }, 'asc', (row) => ({
    ...row,
    ...effectiveHosts(row.kind, { paymentHost: row.payment_host, apiHost: row.api_host }),
    has_credentials: Boolean(row.has_credentials),
    enabled_methods: row.enabled_methods.filter((m): m is PaymentMethod =>
      (PAYMENT_METHODS as readonly string[]).includes(m),
    ),
  }));
});
