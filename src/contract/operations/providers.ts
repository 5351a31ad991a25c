import type { Role } from '../../aggregates/access.ts';
import { dataEnvelope, errorEnvelope, idParams, listEnvelope, pageQuery } from '../envelopes.ts';
import { operation } from '../operation.ts';
import { createProviderBody, providerDto, updateProviderBody } from '../providers.ts';

/** SPEC 5.7 "Providers and rules": super_admin only, reads included (credential metadata is sensitive). */
export const PROVIDER_ADMIN: readonly Role[] = ['super_admin'];

const access = { auth: 'session' as const, roles: PROVIDER_ADMIN };

/** SPEC 2.7, 4.14: a provider record, its credentials sealed. */
export const createProvider = operation({
  method: 'POST',
  path: '/admin/providers',
  access,
  schema: {
    operationId: 'createProvider',
    summary: 'Create a provider (super_admin)',
    description:
      "enabled_methods defaults to [pix]; [] disables all. An external provider takes `credentials: { api_key }` (the key of its environment) and optional `payment_host`/`api_host` (defaults: the real Safe2Pay hosts); the simulator takes neither host. A production provider's hosts must be https on a public address: http, `localhost`, and loopback, private, link-local or cloud-metadata IP addresses are refused with 422 validation_error naming the field (the server's PROVIDER_ALLOWED_PRIVATE_HOSTS lists development exceptions); a sandbox provider's may be http or private, never a metadata address. Credentials are sealed with AES-256-GCM bound to the provider id and its hosts, and never returned. Without CREDENTIALS_ENCRYPTION_KEY on a DATABASE_URL deployment, credentials are refused with 422 validation_error.",
    body: createProviderBody,
    response: { 201: dataEnvelope(providerDto) },
  },
  examples: {
    request: {
      name: 'Simulador',
      kind: 'simulator',
      environment: 'sandbox',
      enabled_methods: ['pix', 'boleto'],
    },
  },
});

export const listProviders = operation({
  method: 'GET',
  path: '/admin/providers',
  access,
  schema: {
    operationId: 'listProviders',
    summary: 'List providers (super_admin), oldest first',
    querystring: pageQuery,
    response: { 200: listEnvelope(providerDto) },
  },
});

export const getProvider = operation({
  method: 'GET',
  path: '/admin/providers/:id',
  access,
  schema: {
    operationId: 'getProvider',
    summary: 'Read a provider (super_admin)',
    params: idParams,
    response: { 200: dataEnvelope(providerDto), 404: errorEnvelope },
  },
});

export const updateProvider = operation({
  method: 'PATCH',
  path: '/admin/providers/:id',
  access,
  schema: {
    operationId: 'updateProvider',
    summary:
      'Change a provider (super_admin): name, enabled, enabled_methods, credentials, hosts, boleto_refund_payout',
    description:
      'Kind, environment and is_marketplace are fixed. Changes apply to new charges only: existing charges keep their provider. New credentials replace the stored ones. The stored credentials are only ever sent to the hosts they were entered with: changing `payment_host` or `api_host` of a provider that has credentials needs `credentials` in the same request, else 422 validation_error with param `credentials` and nothing changes. Hosts follow the creation rule (production: public https). The audit entry records the changed fields before and after (credentials only as replaced, never their value). A marketplace provider with subaccounts that are not failed keeps its matrix key (`matrix_production_api_key`, else `api_key`): new credentials that change it are 409 marketplace_has_subaccounts.',
    params: idParams,
    body: updateProviderBody,
    response: { 200: dataEnvelope(providerDto), 404: errorEnvelope, 409: errorEnvelope },
  },
  examples: { request: { enabled_methods: ['pix'], enabled: true } },
});
