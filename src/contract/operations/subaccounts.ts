import type { Role } from '../../aggregates/access.ts';
import { dataEnvelope, errorEnvelope, idParams, listEnvelope } from '../envelopes.ts';
import { operation } from '../operation.ts';
import {
  createSubaccountBody,
  linkSubaccountBody,
  subaccountListQuery,
  subaccountView,
  updateSubaccountCredentialsBody,
} from '../subaccounts.ts';

/** SPEC 5.7 "Subaccounts": super_admin only, reads included. */
export const SUBACCOUNT_ADMIN: readonly Role[] = ['super_admin'];

const access = { auth: 'session' as const, roles: SUBACCOUNT_ADMIN };

/** The responsible person, address and payout account of the examples (also a subtenant's `subaccount`). */
export const COMPANY_EXAMPLE = {
  responsible: {
    name: 'Maria Responsavel',
    document: '52998224725',
    phone: '11912345678',
    birth_date: '1980-05-17',
  },
  address: {
    zip_code: '01310100',
    street: 'Avenida Paulista',
    number: '1000',
    district: 'Bela Vista',
    city: 'Sao Paulo',
    state: 'SP',
  },
  bank_account: {
    bank_code: '341',
    branch: '0937',
    account: '4455667',
    account_digit: '8',
    account_type: 'checking',
  },
};
const ROUTE = '/admin/subaccounts';

export const createSubaccount = operation({
  method: 'POST',
  path: ROUTE,
  access: { ...access, idempotencyKey: true },
  schema: {
    operationId: 'createSubaccount',
    summary: 'Create a subaccount at a marketplace provider and link it to a tenant (super_admin)',
    description:
      "The record is stored as `creating` before the provider is called, so concurrent requests with the same Idempotency-Key make one call. The idempotency scope is the provider + key; the same key with another body is 409 idempotency_conflict. The provider is called with the marketplace's production key (its `matrix_production_api_key` credential, else its `api_key`), even for a sandbox provider; a sandbox key is refused by the provider and the record ends `failed` saying so. 201: `active` or `failed`; 202: `unknown` (refresh it before anything else). A `failed` record is final: a new attempt needs a new Idempotency-Key. Tokens and the bank account are never returned.",
    body: createSubaccountBody,
    response: {
      200: dataEnvelope(subaccountView).meta({ description: 'Replay: the record this key created' }),
      201: dataEnvelope(subaccountView).meta({ description: 'Created (active) or refused (failed)' }),
      202: dataEnvelope(subaccountView).meta({ description: 'Outcome unknown: refresh it' }),
      404: errorEnvelope,
      409: errorEnvelope,
      422: errorEnvelope,
    },
  },
  examples: {
    request: {
      provider_id: 'prv_marketplace',
      tenant_id: 'ten_child',
      name: 'Loja Filha Ltda',
      commercial_name: 'Loja Filha',
      document: '11222333000181',
      email: 'financeiro@lojafilha.example',
      ...COMPANY_EXAMPLE,
    },
  },
});

export const listSubaccounts = operation({
  method: 'GET',
  path: ROUTE,
  access,
  schema: {
    operationId: 'listSubaccounts',
    summary: 'List subaccounts (super_admin), oldest first',
    querystring: subaccountListQuery,
    response: { 200: listEnvelope(subaccountView) },
  },
});

export const getSubaccount = operation({
  method: 'GET',
  path: `${ROUTE}/:id`,
  access,
  schema: {
    operationId: 'getSubaccount',
    summary: 'Read a subaccount (super_admin)',
    params: idParams,
    response: { 200: dataEnvelope(subaccountView), 404: errorEnvelope },
  },
});

export const refreshSubaccount = operation({
  method: 'POST',
  path: `${ROUTE}/:id/refresh`,
  access,
  schema: {
    operationId: 'refreshSubaccount',
    summary: 'Consult the provider about a creating or unknown subaccount (super_admin)',
    description:
      'By its provider id when one is known, else by its document. Found: `active` with its tokens. Not found: `failed` (a new attempt needs a new Idempotency-Key). No usable answer: it stays `unknown`. Any other status is answered as it is, without calling the provider.',
    params: idParams,
    response: { 200: dataEnvelope(subaccountView), 404: errorEnvelope, 422: errorEnvelope },
  },
});

export const updateSubaccountCredentials = operation({
  method: 'PATCH',
  path: `${ROUTE}/:id/credentials`,
  access,
  schema: {
    operationId: 'updateSubaccountCredentials',
    summary: "Replace a subaccount's token for its provider's environment (super_admin)",
    description:
      "Replaces only the token of the marketplace provider's environment (production or sandbox); the other one is kept. Nothing is sent to the provider. `expected_updated_at` must equal the record's `updated_at` as last read, else 409 subaccount_changed (someone changed it meanwhile: read it again). Only an `active` or `disabled` record has tokens to replace (else 409 conflict). The token is stored encrypted, never returned, and the audit entry says which environment changed, never the value.",
    params: idParams,
    body: updateSubaccountCredentialsBody,
    response: {
      200: dataEnvelope(subaccountView),
      404: errorEnvelope,
      409: errorEnvelope,
      422: errorEnvelope,
    },
  },
  examples: { request: { api_key: 'subaccount-token', expected_updated_at: '2026-11-24T02:05:09.412Z' } },
});

export const disableSubaccount = operation({
  method: 'POST',
  path: `${ROUTE}/:id/disable`,
  access,
  schema: {
    operationId: 'disableSubaccount',
    summary: 'Disable a subaccount link, locally (super_admin)',
    description:
      'Only an `active` link; nothing is sent to the provider (the account stays there). Repeating it changes nothing; a link that is `creating`, `unknown` or `failed` is 409 conflict.',
    params: idParams,
    response: { 200: dataEnvelope(subaccountView), 404: errorEnvelope, 409: errorEnvelope },
  },
});

export const enableSubaccount = operation({
  method: 'POST',
  path: `${ROUTE}/:id/enable`,
  access,
  schema: {
    operationId: 'enableSubaccount',
    summary: 'Enable a disabled subaccount link again (super_admin)',
    description:
      'Local, like disabling. Repeating it changes nothing; a link that is `creating`, `unknown` or `failed` is 409 conflict.',
    params: idParams,
    response: { 200: dataEnvelope(subaccountView), 404: errorEnvelope, 409: errorEnvelope },
  },
});

export const linkSubaccount = operation({
  method: 'POST',
  path: `${ROUTE}/:id/link`,
  access,
  schema: {
    operationId: 'linkSubaccount',
    summary: 'Recover an unknown subaccount by linking the account found at the provider (super_admin)',
    description:
      "For a record left `unknown` (or `creating` after its call ended): the provider is asked for `provider_reference` with the matrix key; the account must exist, not be removed, have the record's document, and carry tokens equal to the ones sent (at least one). Only then is the record `active`, with the provider's tokens, and nothing is created again. An account whose tokens the provider does not show cannot be verified: 422. A wrong id, document or token is 422 validation_error naming the field; no answer from the provider is 502 provider_refresh_failed; any other status is 409 conflict.",
    params: idParams,
    body: linkSubaccountBody,
    response: {
      200: dataEnvelope(subaccountView),
      404: errorEnvelope,
      409: errorEnvelope,
      422: errorEnvelope,
      502: errorEnvelope,
    },
  },
  examples: { request: { provider_reference: '412345', production_token: 'subaccount-production-token' } },
});
