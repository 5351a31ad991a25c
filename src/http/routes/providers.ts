import { PAYMENT_METHODS, type PaymentMethod } from '../../aggregates/provider.ts';
import type { AppContext } from '../../commands/context.ts';
import {
  createProvider,
  effectiveHosts,
  loadProvider,
  providerDeps,
  updateProvider,
} from '../../commands/providers.ts';
import { dataEnvelope, errorEnvelope, idParams, listEnvelope, pageQuery } from '../../contract/envelopes.ts';
import { createProviderBody, providerDto, updateProviderBody } from '../../contract/providers.ts';
import type { Role } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { eventMetadata } from '../request-metadata.ts';
import type { HttpServer } from '../server.ts';

/** SPEC 5.7 "Providers and rules": super_admin only, reads included (credential metadata is sensitive). */
export const PROVIDER_ADMIN: readonly Role[] = ['super_admin'];

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

/** Panel configuration of providers (SPEC 2.7, 4.14, 5.7). */
export function registerProviderRoutes(app: HttpServer, ctx: AppContext): void {
  const deps = providerDeps(ctx);
  const access = { auth: 'session' as const, roles: PROVIDER_ADMIN };

  function selectProviders() {
    return ctx.db
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
  }

  app.post(
    '/admin/providers',
    {
      config: { access },
      schema: {
        operationId: 'createProvider',
        summary: 'Create a provider (super_admin)',
        description:
          "enabled_methods defaults to [pix]; [] disables all. An external provider takes `credentials: { api_key }` (the key of its environment) and optional `payment_host`/`api_host` (defaults: the real Safe2Pay hosts); the simulator takes neither host. A production provider's hosts must be https on a public address: http, `localhost`, and loopback, private, link-local or cloud-metadata IP addresses are refused with 422 validation_error naming the field (the server's PROVIDER_ALLOWED_PRIVATE_HOSTS lists development exceptions); a sandbox provider's may be http or private, never a metadata address. Credentials are sealed with AES-256-GCM bound to the provider id and its hosts, and never returned. Without CREDENTIALS_ENCRYPTION_KEY on a DATABASE_URL deployment, credentials are refused with 422 validation_error.",
        body: createProviderBody,
        response: { 201: dataEnvelope(providerDto) },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const { provider } = await createProvider(
        deps,
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
        eventMetadata(request),
      );
      return reply.code(201).send({ data: provider });
    },
  );

  app.get(
    '/admin/providers',
    {
      config: { access },
      schema: {
        operationId: 'listProviders',
        summary: 'List providers (super_admin), oldest first',
        querystring: pageQuery,
        response: { 200: listEnvelope(providerDto) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const rows = await selectProviders()
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit)
        .offset(offset)
        .execute();
      return { data: rows.map(toDto), meta: { limit, offset, count: rows.length } };
    },
  );

  app.get(
    '/admin/providers/:id',
    {
      config: { access },
      schema: {
        operationId: 'getProvider',
        summary: 'Read a provider (super_admin)',
        params: idParams,
        response: { 200: dataEnvelope(providerDto), 404: errorEnvelope },
      },
    },
    async (request) => {
      // Folded from its stream: always consistent, also while an async read model catches up.
      const provider = await loadProvider(deps, request.params.id);
      if (!provider) throw new ApiError('not_found', 'The provider does not exist.');
      return { data: provider };
    },
  );

  app.patch(
    '/admin/providers/:id',
    {
      config: { access },
      schema: {
        operationId: 'updateProvider',
        summary:
          'Change a provider (super_admin): name, enabled, enabled_methods, credentials, hosts, boleto_refund_payout',
        description:
          'Kind, environment and is_marketplace are fixed. Changes apply to new charges only: existing charges keep their provider. New credentials replace the stored ones. The stored credentials are only ever sent to the hosts they were entered with: changing `payment_host` or `api_host` of a provider that has credentials needs `credentials` in the same request, else 422 validation_error with param `credentials` and nothing changes. Hosts follow the creation rule (production: public https). The audit entry records the changed fields before and after (credentials only as replaced, never their value).',
        params: idParams,
        body: updateProviderBody,
        response: { 200: dataEnvelope(providerDto), 404: errorEnvelope, 409: errorEnvelope },
      },
    },
    async (request) => {
      const b = request.body;
      const provider = await updateProvider(
        deps,
        request.params.id,
        {
          name: b.name,
          enabled: b.enabled,
          enabledMethods: b.enabled_methods,
          credentials: b.credentials,
          paymentHost: b.payment_host,
          apiHost: b.api_host,
          boletoRefundPayout: b.boleto_refund_payout,
        },
        eventMetadata(request),
      );
      return { data: provider };
    },
  );
}
