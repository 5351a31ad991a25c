import { z } from 'zod';
import {
  PAYMENT_METHODS,
  type PaymentMethod,
  PROVIDER_ENVIRONMENTS,
  PROVIDER_KINDS,
} from '../../aggregates/provider.ts';
import {
  createProvider,
  effectiveHosts,
  loadProvider,
  providerDeps,
  updateProvider,
} from '../../commands/providers.ts';
import type { Role } from '../auth.ts';
import type { AppContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { eventMetadata } from '../request-metadata.ts';
import { dataEnvelope, errorEnvelope, idParams, listEnvelope, pageQuery } from '../schemas.ts';
import type { HttpServer } from '../server.ts';

/** SPEC 5.7 "Providers and rules": super_admin only, reads included (credential metadata is sensitive). */
export const PROVIDER_ADMIN: readonly Role[] = ['super_admin'];

/** SPEC 2.7: a list of `pix`, `boleto`; `[]` disables all; duplicates or unknown values are invalid (422). */
export const enabledMethods = z
  .array(z.enum(PAYMENT_METHODS))
  .max(PAYMENT_METHODS.length * 2)
  .refine((list) => new Set(list).size === list.length, { message: 'must not repeat a method' });

/** Stored sealed; never returned or logged. Values are strings: API keys, tokens, account ids. */
const credentials = z
  .record(z.string().min(1).max(64), z.string().min(1).max(4096))
  .refine((c) => Object.keys(c).length >= 1 && Object.keys(c).length <= 20, {
    message: 'must have 1 to 20 entries',
  })
  .meta({ description: 'Encrypted at rest (AES-256-GCM bound to the provider id); never returned.' });

/**
 * Issue 13: a Safe2Pay host of an external provider, as an origin (http(s), no path, query or credentials):
 * the adapter appends `/v2/...`. http is allowed for the provider emulator in development and tests.
 */
const host = z
  .string()
  .max(2048)
  .refine(
    (v) => {
      if (!URL.canParse(v)) return false;
      const u = new URL(v);
      return (
        (u.protocol === 'https:' || u.protocol === 'http:') &&
        u.username === '' &&
        u.password === '' &&
        u.search === '' &&
        u.hash === '' &&
        v.replace(/\/+$/, '') === u.origin + u.pathname.replace(/\/+$/, '')
      );
    },
    { message: 'must be an http(s) base URL without credentials, query or fragment' },
  );

export const providerDto = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(PROVIDER_KINDS),
    environment: z.enum(PROVIDER_ENVIRONMENTS),
    enabled_methods: z.array(z.enum(PAYMENT_METHODS)),
    is_marketplace: z.boolean(),
    enabled: z.boolean(),
    has_credentials: z.boolean(),
    payment_host: z.string().nullable().meta({
      description: 'External provider: base of charge creation (default https://payment.safe2pay.com.br).',
    }),
    api_host: z.string().nullable().meta({
      description: 'External provider: base of queries and changes (default https://api.safe2pay.com.br).',
    }),
  })
  .meta({ id: 'Provider', description: 'SPEC 2.7. Credentials are never returned, only has_credentials.' });

const createBody = z.strictObject({
  name: z.string(),
  kind: z.enum(PROVIDER_KINDS),
  environment: z.enum(PROVIDER_ENVIRONMENTS),
  enabled_methods: enabledMethods.default(['pix']),
  is_marketplace: z.boolean().default(false),
  credentials: credentials.optional(),
  payment_host: host.optional(),
  api_host: host.optional(),
});

const patchBody = z.strictObject({
  name: z.string().optional(),
  enabled: z.boolean().optional(),
  enabled_methods: enabledMethods.optional(),
  credentials: credentials.optional(),
  /** null returns to the real host. */
  payment_host: host.nullable().optional(),
  api_host: host.nullable().optional(),
});

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
          'enabled_methods defaults to [pix]; [] disables all. An external provider takes `credentials: { api_key }` (the key of its environment) and optional `payment_host`/`api_host` (defaults: the real Safe2Pay hosts); the simulator takes neither host. Credentials are sealed with AES-256-GCM bound to the provider id and never returned. Without CREDENTIALS_ENCRYPTION_KEY on a DATABASE_URL deployment, credentials are refused with 422 validation_error.',
        body: createBody,
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
        summary: 'Change a provider (super_admin): name, enabled, enabled_methods, credentials, hosts',
        description:
          'Kind, environment and is_marketplace are fixed. Changes apply to new charges only (SPEC 2.8). New credentials replace the stored ones.',
        params: idParams,
        body: patchBody,
        response: { 200: dataEnvelope(providerDto), 404: errorEnvelope },
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
        },
        eventMetadata(request),
      );
      return { data: provider };
    },
  );
}
