import { PAYMENT_METHODS, type PaymentMethod } from '../../../aggregates/provider.ts';
import { listProviders } from '../../../contract/operations/providers.ts';
import { bind } from '../../bind.ts';
import { page } from '../../page.ts';
import { effectiveHosts } from '../record.ts';

type ProviderRow = {
  id: string;
  name: string;
  kind: 'simulator' | 'external';
  environment: 'sandbox' | 'production';
  enabled_methods: string[];
  is_marketplace: boolean;
  enabled: boolean;
  has_credentials: boolean | number;
  payment_host: string | null;
  api_host: string | null;
  boleto_refund_payout: boolean;
};

const toDto = (row: ProviderRow) => ({
  ...row,
  ...effectiveHosts(row.kind, { paymentHost: row.payment_host, apiHost: row.api_host }),
  has_credentials: Boolean(row.has_credentials),
  enabled_methods: row.enabled_methods.filter((m): m is PaymentMethod =>
    (PAYMENT_METHODS as readonly string[]).includes(m),
  ),
});

/** SPEC 4.14: providers from the read model, oldest first. No handler: nothing is decided. */
export const listRoute = bind(listProviders, async (call, ctx) => {
  const { limit, offset } = call.query;
  const rows = await ctx.db
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
    ])
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute();
  return page(rows.map(toDto), { limit, offset });
});
