import { type PaymentMethod, type ProviderCreatedData, provider } from '../../aggregates/provider.ts';
import { pick } from '../../pick.ts';
import { SAFE2PAY_API_HOST, SAFE2PAY_PAYMENT_HOST } from '../../providers/safe2pay/adapter.ts';
import { aggregateRecord } from '../aggregate-record.ts';

/** A provider record (SPEC 2.7): its stream and what the panel sees of it. */

export const providerStream = (providerId: string) => `provider-${providerId}`;

/** What the panel sees of a provider: never the credentials, only whether there are some. */
export interface ProviderView {
  id: string;
  name: string;
  kind: ProviderCreatedData['kind'];
  environment: ProviderCreatedData['environment'];
  enabled_methods: PaymentMethod[];
  is_marketplace: boolean;
  enabled: boolean;
  has_credentials: boolean;
  /** Issue 13: the effective Safe2Pay hosts of an external provider (defaults: the real ones); null for the simulator. */
  payment_host: string | null;
  api_host: string | null;
  /** Issue 22 item 4.2: a boleto paid by boleto may be refunded by a payout through this provider. */
  boleto_refund_payout: boolean;
}

/** The hosts a provider answers with: the stored ones, else the real Safe2Pay hosts; none for the simulator. */
export function effectiveHosts(
  kind: ProviderCreatedData['kind'],
  stored: { paymentHost: string | null; apiHost: string | null },
): { payment_host: string | null; api_host: string | null } {
  if (kind === 'simulator') return { payment_host: null, api_host: null };
  return {
    payment_host: stored.paymentHost ?? SAFE2PAY_PAYMENT_HOST,
    api_host: stored.apiHost ?? SAFE2PAY_API_HOST,
  };
}

const record = aggregateRecord(
  provider,
  providerStream,
  (state): ProviderView => ({
    id: state.providerId,
    ...pick(state, 'name', 'kind', 'environment'),
    enabled_methods: [...state.enabledMethods],
    is_marketplace: state.isMarketplace,
    enabled: state.enabled,
    has_credentials: state.credentialsCiphertext !== null,
    ...effectiveHosts(state.kind, state),
    boleto_refund_payout: state.boletoRefundPayout,
  }),
  'provider',
);

/** The view of the record a command just created or changed. */
export const commandedProvider = record.commanded;
export const loadProvider = record.load;
