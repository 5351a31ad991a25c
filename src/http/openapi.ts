import { createHash } from 'node:crypto';
import swagger from '@fastify/swagger';
import apiReference from '@scalar/fastify-api-reference';
import type { FastifyContextConfig, FastifyInstance, RouteOptions } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { RouteAccess } from './auth.ts';
// Registers TransactionWebhookEvent by its id, so the document lists it under components (`webhooks` refers to it).
import '../contract/webhook-event.ts';
import { componentExamples } from '../contract/component-examples.ts';
import { errorEnvelope, IDEMPOTENCY_KEY } from '../contract/envelopes.ts';
import type { OperationExamples } from '../contract/operation.ts';
import { TAGS } from '../contract/tags.ts';
import { webhookExamples } from '../contract/webhook-examples.ts';
import { ERRORS } from './errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's examples in /openapi.json: a mounted operation's from its contract, a raw route's own. */
    examples?: OperationExamples;
  }
}

/** SPEC 9: OpenAPI 3.1, info.version 0.4.0. */
export const API_VERSION = '0.4.0';

/** Errors any authenticated route can answer besides its own (SPEC 7). */
const COMMON_ERRORS = [400, 401, 403, 413, 422, 429, 500, 503];
/** Routes without a credential; 403 is `origin_denied` (SPEC 5.8), which any route can answer. */
const PUBLIC_ERRORS = [400, 403, 413, 422, 429, 500, 503];

/**
 * Gives every documented route its security scheme (`security: []` when it takes no credential) and the
 * error envelope for the common error statuses, so the document describes every response the code can
 * produce. Its tag is in its schema: a mounted operation's from its feature (src/http/mount.ts), a raw
 * route's its own. Must run before routes are added.
 */
export function describeRoutes(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.schema || route.schema.hide) return;
    const access = route.config?.access;
    const response = { ...((route.schema.response as Record<number, unknown> | undefined) ?? {}) };
    const statuses = access?.auth ? COMMON_ERRORS : PUBLIC_ERRORS;
    for (const status of statuses) response[status] ??= errorEnvelope;
    route.schema = {
      ...route.schema,
      response,
      security: access?.auth ? [{ [access.auth === 'api_key' ? 'ApiKey' : 'Session']: [] }] : [],
    };
  });
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const child = (value: unknown, key: string): Json | undefined => {
  const next = isObject(value) ? value[key] : undefined;
  return isObject(next) ? next : undefined;
};

const refName = (schema: unknown): string | undefined =>
  isObject(schema) && typeof schema.$ref === 'string' ? schema.$ref.split('/').pop() : undefined;

/**
 * The example of a response schema that is a component or an envelope of one (SPEC 2.1): `{ data: X }`,
 * `{ data: [X], meta }` or `{ data: [X] }`.
 */
function exampleOf(schema: unknown): unknown {
  const own = refName(schema);
  if (own) return componentExamples[own];
  const data = isObject(schema) && isObject(schema.properties) ? schema.properties.data : undefined;
  const one = refName(data);
  if (one && componentExamples[one] !== undefined) return { data: componentExamples[one] };
  const many = isObject(data) ? refName(data.items) : undefined;
  if (!many || componentExamples[many] === undefined) return undefined;
  const hasMeta = isObject(schema) && isObject(schema.properties) && 'meta' in schema.properties;
  return hasMeta
    ? { data: [componentExamples[many]], meta: { limit: 50, offset: 0, count: 1 } }
    : { data: [componentExamples[many]] };
}

const ERROR_ENVELOPE_REF = '#/components/schemas/ErrorEnvelope';
/** Named error responses (SPEC 7), one per status; their descriptions list the codes of that status. */
const ERROR_RESPONSES: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  422: 'UnprocessableContent',
  429: 'TooManyRequests',
  500: 'InternalError',
  502: 'BadGateway',
  503: 'ServiceUnavailable',
};
const ERROR_TITLES: Record<number, string> = {
  400: 'Malformed request',
  401: 'Not authenticated',
  403: 'Not allowed',
  404: 'Not found (or not visible to the caller)',
  409: 'Conflicts with the current state',
  413: 'Body larger than 1 MiB',
  422: 'A field or business rule refused the request',
  429: 'Rate limit reached',
  500: 'Internal error, outcome unconfirmed',
  502: 'The payment provider refused or diverged',
  503: 'A dependency is unavailable',
};

function errorComponents(): Json {
  const responses: Json = {};
  for (const [status, name] of Object.entries(ERROR_RESPONSES)) {
    // `reconciliation_required` is 409, or 503 when the outcome cannot be checked now (SPEC 7).
    const codes = Object.entries(ERRORS).filter(
      ([c, [s]]) => s === Number(status) || (status === '503' && c === 'reconciliation_required'),
    );
    const [firstCode, [, firstMessage]] = codes[0] ?? ['internal_error', ERRORS.internal_error];
    responses[name] = {
      description: `${ERROR_TITLES[Number(status)]}. \`error.code\` is one of: ${codes.map(([c]) => `\`${c}\``).join(', ')}.`,
      headers: { 'X-Request-ID': { $ref: '#/components/headers/RequestId' } },
      content: {
        'application/json': {
          schema: { $ref: ERROR_ENVELOPE_REF },
          example: {
            error: { code: firstCode, message: firstMessage, request_id: 'req_01jd4v0q7zk4w9m2x3b5n6p8rt' },
          },
        },
      },
    };
  }
  return responses;
}

/** How a route takes the Idempotency-Key header: required (SPEC 4 common rules) or optional (cost centers). */
function idempotencyOf(access: RouteAccess | undefined): 'required' | 'optional' | undefined {
  if (access?.idempotencyKey === true) return 'required';
  if (access?.idempotencyKey === 'optional') return 'optional';
  return undefined;
}

/** A description for a response the route left undescribed, from its JSON body (SPEC 2.1 envelopes). */
function describeSuccess(code: number, response: Json): string {
  const schema = child(child(child(response, 'content'), 'application/json'), 'schema');
  const data = child(child(schema, 'properties'), 'data');
  const name = (ref: unknown) => (typeof ref === 'string' ? ref.split('/').pop() : undefined);
  const one = name(data?.$ref);
  const many = name(child(data, 'items')?.$ref);
  if (many) return `${many} records (one page: \`meta\` has limit, offset and count)`;
  if (one) return code === 201 ? `Created: the ${one}` : `The ${one}`;
  return code === 201 ? 'Created' : 'OK';
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every `$ref` reachable from `start`, following component references. */
function reachableRefs(doc: Json, start: unknown): Set<string> {
  const seen = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/') && !seen.has(value)) {
        seen.add(value);
        const target = value
          .slice(2)
          .split('/')
          .reduce<unknown>(
            (at, part) => (isObject(at) ? at[part.replaceAll('~1', '/').replaceAll('~0', '~')] : undefined),
            doc,
          );
        walk(target);
      } else walk(value);
    }
  };
  walk(start);
  return seen;
}

/**
 * Completes the generated document (issue 15 item 1): named error responses, the Idempotency-Key parameter,
 * response headers, examples, the `webhooks` section, and no component nothing refers to (the zod provider
 * emits an input and an output variant of every registered schema; most inputs are never used).
 */
function finishDocument(doc: Json, configById: ReadonlyMap<string, FastifyContextConfig | undefined>): void {
  const components = child(doc, 'components') ?? {};
  doc.components = components;
  components.responses = errorComponents();
  components.headers = {
    RequestId: {
      description: 'The id of this request, also in `error.request_id` and in the logs.',
      schema: { type: 'string' },
      example: 'req_01jd4v0q7zk4w9m2x3b5n6p8rt',
    },
    IdempotencyReplayed: {
      description:
        'Present, with `true`, when the answer replays an earlier request with the same Idempotency-Key.',
      schema: { type: 'string', enum: ['true'] },
    },
  };
  const keyParameter = (required: boolean) => ({
    name: 'Idempotency-Key',
    in: 'header',
    required,
    description: required
      ? 'Required; missing or malformed is `400 idempotency_key_required`. The same key with the same body replays the first answer; with another body, `409 idempotency_conflict`.'
      : 'Optional here; when sent it works as on creations, and a malformed one is `400 idempotency_key_required`.',
    schema: { type: 'string', pattern: IDEMPOTENCY_KEY.source },
    example: 'pedido-2024-000123',
  });
  components.parameters = { IdempotencyKey: keyParameter(true), IdempotencyKeyOptional: keyParameter(false) };

  for (const item of Object.values(child(doc, 'paths') ?? {})) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const operation = child(item, method);
      if (!operation) continue;
      const id = typeof operation.operationId === 'string' ? operation.operationId : undefined;
      const config = id ? configById.get(id) : undefined;
      const idempotency = idempotencyOf(config?.access);
      if (idempotency) {
        const parameters = Array.isArray(operation.parameters) ? operation.parameters : [];
        operation.parameters = [
          ...parameters,
          {
            $ref: `#/components/parameters/${idempotency === 'required' ? 'IdempotencyKey' : 'IdempotencyKeyOptional'}`,
          },
        ];
      }
      const examples = config?.examples;
      const body = child(child(child(operation, 'requestBody'), 'content'), 'application/json');
      if (body && examples?.request !== undefined) body.example = examples.request;
      const responses = child(operation, 'responses') ?? {};
      for (const [status, response] of Object.entries(responses)) {
        if (!isObject(response)) continue;
        const json = child(child(response, 'content'), 'application/json');
        const code = Number(status);
        const name = ERROR_RESPONSES[code];
        if (code >= 400 && name && child(json, 'schema')?.$ref === ERROR_ENVELOPE_REF) {
          // OpenAPI 3.1: a reference may carry its own description, kept when the route wrote one.
          const own = typeof response.description === 'string' && response.description !== 'Default Response';
          responses[status] = {
            $ref: `#/components/responses/${name}`,
            ...(own ? { description: response.description } : {}),
          };
          continue;
        }
        if (response.description === 'Default Response')
          response.description = describeSuccess(code, response);
        const headers: Json = { 'X-Request-ID': { $ref: '#/components/headers/RequestId' } };
        if (idempotency && code >= 200 && code < 300) {
          headers['Idempotency-Replayed'] = { $ref: '#/components/headers/IdempotencyReplayed' };
        }
        response.headers = { ...child(response, 'headers'), ...headers };
        if (code < 200 || code >= 300) continue;
        for (const [type, media] of Object.entries(child(response, 'content') ?? {})) {
          if (!isObject(media)) continue;
          const example =
            examples?.responses?.[code] ??
            (type === 'application/json' ? exampleOf(media.schema) : undefined);
          if (example !== undefined) media.example = example;
        }
      }
    }
  }

  doc.webhooks = webhookSection();

  // Drop what nothing refers to, keeping what the document and the test client look up by name.
  const used = reachableRefs(doc, {
    paths: doc.paths,
    webhooks: doc.webhooks,
    keep: { $ref: ERROR_ENVELOPE_REF },
  });
  for (const kind of ['schemas', 'responses', 'parameters', 'headers']) {
    const group = child(components, kind);
    if (!group) continue;
    for (const name of Object.keys(group)) {
      if (!used.has(`#/components/${kind}/${name}`)) delete group[name];
    }
  }
  const schemas = child(components, 'schemas');
  if (schemas) components.schemas = inSchemaOrder(schemas);
}

/**
 * The order the document has listed its named schemas in since issue 15. It used to follow the order the
 * route files were imported, which feature modules (issue 24) no longer keep; fixing it here keeps the
 * document stable for clients that diff it. A schema not named here follows, in registration order.
 */
const SCHEMA_ORDER = [
  'ErrorEnvelope',
  'Transaction',
  'TransactionRequest',
  'TransactionEvent',
  'TransactionWebhookEvent',
  'ApiKey',
  'IssuedApiKey',
  'AuditEntry',
  'CostCenter',
  'Provider',
  'RefundAwaitingOperator',
  'RefundBankAccount',
  'RoutingRule',
  'SessionCreated',
  'PaymentSettings',
  'AdminSummary',
  'TenantType',
  'Tenant',
  'User',
  'WebhookDelivery',
  'WebhookEndpoint',
  'CreatedWebhookEndpoint',
  'WebhookEndpointSecrets',
];

function inSchemaOrder(schemas: Json): Json {
  const rank = (name: string) => {
    const at = SCHEMA_ORDER.indexOf(name);
    return at === -1 ? SCHEMA_ORDER.length : at;
  };
  // Stable: unnamed schemas keep their registration order.
  return Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => rank(a) - rank(b)));
}

function webhookSection(): Json {
  const operation = (type: 'transaction.created' | 'transaction.updated', summary: string) => ({
    post: {
      operationId: type === 'transaction.created' ? 'transactionCreatedWebhook' : 'transactionUpdatedWebhook',
      tags: ['Webhooks'],
      summary,
      description:
        "Sent to endpoints registered in the panel (every event of their tenant in their mode) and to the charge's `callback_url`. Standard Webhooks: verify `webhook-signature` over `webhook-id.webhook-timestamp.body`; deduplicate on `webhook-id` (delivery is at least once); order updates by `data.sequence`.",
      security: [],
      parameters: [
        {
          name: 'webhook-id',
          in: 'header',
          required: true,
          description: 'Same across retries of one delivery.',
          schema: { type: 'string' },
          example: 'msg_0f8b6c2e4d1a4f7b9c3e5a2d8e6f1b47',
        },
        {
          name: 'webhook-timestamp',
          in: 'header',
          required: true,
          description: 'Unix seconds of this attempt.',
          schema: { type: 'string' },
          example: '1732406400',
        },
        {
          name: 'webhook-signature',
          in: 'header',
          required: true,
          description: '`v1,<base64 HMAC-SHA256>`, one per valid secret, space separated.',
          schema: { type: 'string' },
          example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
        },
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/TransactionWebhookEvent' },
            example: webhookExamples[type],
          },
        },
      },
      responses: {
        '200': {
          description:
            'Any 2xx acknowledges the delivery; anything else is retried with backoff, 410 disables the endpoint.',
        },
      },
    },
  });
  return {
    'transaction.created': operation('transaction.created', 'A charge was registered'),
    'transaction.updated': operation('transaction.updated', 'A charge changed status'),
  };
}

export async function registerOpenApi(app: FastifyInstance, serverUrl: string): Promise<void> {
  // Filled by `transform` (one call per route) and read by `transformObject`, in the same document build.
  const configById = new Map<string, FastifyContextConfig | undefined>();
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Calebe payment gateway',
        version: API_VERSION,
        description:
          'Multi-tenant payment gateway for Brazil: Pix and boleto charges, their lifecycle and webhooks. Public API under /v1 (X-API-Key) and panel API under /admin (Bearer session). Amounts are integer centavos (BRL). Errors are `{ error: { code, message, request_id } }`: decide on `code`, never on the message.',
        // The gateway's licence, as package.json and LICENSE (issue 23 item 1.1); OpenAPI 3.1 takes its SPDX id.
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      servers: [{ url: serverUrl, description: 'This instance' }],
      tags: TAGS.map(({ name, description }) => ({ name, description })),
      components: {
        securitySchemes: {
          ApiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: 'API key of a tenant: `clb_test_…` (test mode) or `clb_live_…` (production).',
          },
          Session: { type: 'http', scheme: 'bearer', description: 'Session token from POST /admin/sessions' },
        },
      },
    },
    transform: (input) => {
      const id = input.schema.operationId;
      if (id) configById.set(id, input.route.config);
      return jsonSchemaTransform(input);
    },
    transformObject: (input) => {
      const doc = jsonSchemaTransformObject(input);
      if (isObject(doc)) finishDocument(doc, configById);
      return doc;
    },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(registerDocsPage);
}

const FAVICON = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0f766e"/><text x="16" y="23" font-family="sans-serif" font-size="20" font-weight="700" text-anchor="middle" fill="#fff">C</text></svg>',
)}`;

/**
 * The reference page at /docs (issue 15 item 2): Scalar, its JS bundle served from the package at
 * /docs/js/scalar.js, never from a CDN (docs/decisions.md "Docs page"). Registered in a scope of its own so
 * its Content-Security-Policy covers only these routes.
 */
async function registerDocsPage(scope: FastifyInstance): Promise<void> {
  scope.addHook('onSend', async (_request, reply, payload) => {
    if (typeof payload === 'string' && String(reply.getHeader('content-type')).startsWith('text/html')) {
      reply.header('content-security-policy', docsPageCsp(payload));
    }
    return payload;
  });
  await scope.register(apiReference, {
    routePrefix: '/docs',
    logLevel: 'warn',
    configuration: {
      // The one document at /openapi.json: with a `url`, the plugin exposes no copies under /docs.
      url: '/openapi.json',
      pageTitle: 'Calebe API reference',
      // Inline: without an icon the browser asks for /favicon.ico, which the gateway answers 404.
      favicon: FAVICON,
      // Each of these would reach scalar.com: web fonts, telemetry, the developer toolbar, MCP.
      withDefaultFonts: false,
      telemetry: false,
      showDeveloperTools: 'never',
      mcp: { disabled: true },
      // "Ask AI" sends the document to Scalar's service.
      agent: { disabled: true },
      // Every tag open, so a reader (and the browser test) sees all operations without clicking.
      defaultOpenAllTags: true,
      expandAllResponses: true,
      documentDownloadType: 'json',
      hideClientButton: true,
    },
  });
}

/**
 * Only this origin: the bundle and the document, nothing from outside. The page's one inline script (its
 * configuration, fixed at registration: no request data enters the HTML) is allowed by its hash; the UI
 * sets inline styles at run time, hence 'unsafe-inline' for styles only.
 */
export function docsPageCsp(html: string): string {
  const hashes = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
    (m) =>
      `'sha256-${createHash('sha256')
        .update(m[1] ?? '')
        .digest('base64')}'`,
  );
  return [
    "default-src 'none'",
    `script-src 'self' ${hashes.join(' ')}`,
    "style-src 'self' 'unsafe-inline'",
    "connect-src 'self'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
