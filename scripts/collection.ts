/**
 * `npm run collection` (issue 15 item 4): a Postman v2.1 collection of the served OpenAPI document, built
 * the way scripts/lint-openapi.ts builds it and converted by Postman's own openapi-to-postmanv2: one folder
 * per tag, one request per operation with its example body. Written to docs/calebe.postman_collection.json;
 * test/unit/postman-collection.test.ts regenerates it and fails on drift.
 *
 *   node --import tsx scripts/collection.ts [--out file.json]
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { type CollectionResult, convert } from 'openapi-to-postmanv2';
import { buildOpenApiDocument } from './openapi.ts';

export const COLLECTION_FILE = 'docs/calebe.postman_collection.json';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The converter's output made stable and ready to send: its random ids dropped (Postman assigns its own on
 * import; random ones would make every regeneration a diff), response examples dropped (the OpenAPI
 * document has them; they are most of the size), the session token named `sessionToken` and every
 * Idempotency-Key a fresh `{{$guid}}`, so a request sent twice from Postman is not taken for a replay.
 */
function tidy(node: Json): Json {
  if (Array.isArray(node)) return node.map(tidy);
  if (node === null || typeof node !== 'object') {
    return typeof node === 'string' ? node.replaceAll('{{bearerToken}}', '{{sessionToken}}') : node;
  }
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'id' && typeof value === 'string' && UUID.test(value)) continue;
    if (key === 'response' && Array.isArray(value)) continue;
    out[key] = tidy(value);
  }
  // Optional query filters start unticked: sent as a placeholder they would narrow or fail the request.
  if (Array.isArray(out.query)) {
    out.query = out.query.map((q) => {
      if (q === null || typeof q !== 'object' || Array.isArray(q)) return q;
      const required = typeof q.description === 'string' && q.description.startsWith('(Required)');
      return { ...q, disabled: !required };
    });
  }
  if (typeof out.key === 'string' && out.key.toLowerCase() === 'idempotency-key' && 'value' in out) {
    out.value = '{{$guid}}';
  }
  return out;
}

interface Parameter {
  in?: string;
  name?: string;
  example?: unknown;
  schema?: { example?: unknown; default?: unknown; enum?: unknown[]; type?: string; minimum?: number };
}

/**
 * The converter fakes a value for a parameter with no example, differently on every run; a value derived
 * from its schema (default, first enum member, minimum) keeps the file the same from one run to the next.
 */
function withParameterExamples(document: { paths?: Record<string, Record<string, unknown>> }): void {
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item)) {
      const parameters = (operation as { parameters?: Parameter[] }).parameters ?? [];
      for (const p of parameters) {
        if (p.example !== undefined || !p.schema) continue;
        const s = p.schema;
        const numeric = s.type === 'integer' || s.type === 'number';
        // An empty example counts as none (it would be faked); a string gets a visible `<name>` to replace.
        p.example = s.example ?? s.default ?? s.enum?.[0] ?? (numeric ? (s.minimum ?? 1) : `<${p.name}>`);
      }
    }
  }
}

/**
 * Issue 23 item 1.9: the collection runs as sent, top to bottom, from an empty gateway with a test key:
 * each request that creates a record saves its id in a collection variable (its test script), path ids
 * are those variables, and dates come from the collection's pre-request script, so no request carries an
 * invented id or a fixed (one day past) date. test/unit/postman-collection.test.ts checks that, and
 * test/http/postman-run.test.ts sends the public requests in order to a served gateway.
 */
export const RUN_VARIABLES = [
  { key: 'today', description: 'set by the pre-request script: today in America/Sao_Paulo' },
  { key: 'dueDate', description: 'set by the pre-request script: 5 days ahead in America/Sao_Paulo' },
  { key: 'newDueDate', description: 'set by the pre-request script: 12 days ahead in America/Sao_Paulo' },
  { key: 'transactionId', description: 'data.id of Create a Pix charge' },
  { key: 'boletoId', description: 'data.id of Create a boleto charge' },
  { key: 'chargePageId', description: 'the id in the Pix document_url' },
  { key: 'chargePageSignature', description: 'the signature in the Pix document_url' },
  { key: 'boletoPageId', description: 'the id in the boleto document_url' },
  { key: 'boletoPageSignature', description: 'the signature in the boleto document_url' },
  { key: 'checkoutId', description: 'data.id of Create a hosted checkout link' },
  { key: 'checkoutPageSignature', description: 'the signature in the checkout url' },
  { key: 'testClockId', description: 'data.id of Create a test clock' },
  { key: 'costCenterId', description: 'data.id of Create a cost center' },
  { key: 'subtenantId', description: 'data.id of Register a subtenant' },
  { key: 'subscriptionId', description: 'data.id of Create a subscription' },
  {
    key: 'pixAutomaticAuthorizationId',
    description: 'data.id of Create a Pix Automatic authorization',
  },
  { key: 'notificationId', description: 'data.id of Publish an internal notification' },
  { key: 'tenantTypeId', description: 'data.id of Create a tenant type' },
  { key: 'tenantId', description: 'data.id of Create a tenant' },
  { key: 'userId', description: 'data.id of Create a user' },
  { key: 'apiKeyId', description: 'data.id of Issue an API key' },
  { key: 'providerId', description: 'data.id of Create a provider' },
  { key: 'ruleId', description: 'data.id of Create a routing rule' },
  { key: 'subaccountId', description: 'data.id of Create a subaccount' },
  { key: 'webhookEndpointId', description: 'data.id of Register a webhook endpoint' },
  { key: 'webhookDeliveryId', description: 'data[0].id of List webhook deliveries' },
] as const;

/**
 * São Paulo has had no daylight saving time since 2019: its day is UTC-3. Postman's sandbox is not
 * promised an ICU with time zones, so the offset is spelled out.
 */
const PRE_REQUEST = [
  '// Due dates a few days ahead in America/Sao_Paulo (UTC-3), so a boleto example is never past due.',
  'const saoPauloDay = (days) => new Date(Date.now() - 3 * 3600e3 + days * 864e5).toISOString().slice(0, 10);',
  "pm.collectionVariables.set('today', saoPauloDay(0));",
  "pm.collectionVariables.set('dueDate', saoPauloDay(5));",
  "pm.collectionVariables.set('newDueDate', saoPauloDay(12));",
];

/** By operationId: what its answer saves (variable: JavaScript expression over `data`). */
const SAVES: Record<string, Record<string, string>> = {
  createSession: { sessionToken: 'data.token' },
  createPix: {
    transactionId: 'data.id',
    chargePageId: "data.document_url.split('/cobranca/')[1].split('/')[0]",
    chargePageSignature: "data.document_url.split('/cobranca/')[1].split('/')[1]",
  },
  createBoleto: {
    boletoId: 'data.id',
    boletoPageId: "data.document_url.split('/cobranca/')[1].split('/')[0]",
    boletoPageSignature: "data.document_url.split('/cobranca/')[1].split('/')[1]",
  },
  createCheckout: {
    checkoutId: 'data.id',
    checkoutPageSignature: "data.url.split('/checkout/')[1].split('/')[1]",
  },
  createTestClock: { testClockId: 'data.id' },
  createCostCenter: { costCenterId: 'data.id' },
  createSubtenant: { subtenantId: 'data.id' },
  createSubscription: { subscriptionId: 'data.id' },
  createPixAutomaticAuthorization: { pixAutomaticAuthorizationId: 'data.id' },
  createNotification: { notificationId: 'data.id' },
  createTenantType: { tenantTypeId: 'data.id' },
  createTenant: { tenantId: 'data.id' },
  createUser: { userId: 'data.id' },
  createApiKey: { apiKeyId: 'data.id' },
  createProvider: { providerId: 'data.id' },
  createRoutingRule: { ruleId: 'data.id' },
  createSubaccount: { subaccountId: 'data.id' },
  createWebhookEndpoint: { webhookEndpointId: 'data.id' },
  listWebhookDeliveries: { webhookDeliveryId: 'data[0] && data[0].id' },
};

/** Path ids by the path's prefix; the longest prefix wins. */
const PATH_IDS: [prefix: string, param: string, variable: string][] = [
  ['/v1/transactions/{id}/boleto', 'id', 'boletoId'],
  ['/v1/transactions', 'id', 'transactionId'],
  ['/admin/transactions', 'id', 'transactionId'],
  ['/admin/refunds', 'id', 'transactionId'],
  ['/v1/checkouts', 'id', 'checkoutId'],
  ['/v1/test_clocks', 'id', 'testClockId'],
  ['/v1/cost-centers', 'id', 'costCenterId'],
  ['/v1/subtenants', 'id', 'subtenantId'],
  ['/v1/subscriptions', 'id', 'subscriptionId'],
  ['/admin/subscriptions', 'id', 'subscriptionId'],
  ['/v1/pix-automatic/authorizations', 'id', 'pixAutomaticAuthorizationId'],
  ['/admin/notifications', 'id', 'notificationId'],
  ['/admin/tenants', 'id', 'tenantId'],
  ['/admin/users', 'id', 'userId'],
  ['/admin/api-keys', 'id', 'apiKeyId'],
  ['/admin/providers', 'id', 'providerId'],
  ['/admin/rules', 'id', 'ruleId'],
  ['/admin/subaccounts', 'id', 'subaccountId'],
  ['/admin/webhook-endpoints', 'id', 'webhookEndpointId'],
  ['/admin/webhook-deliveries', 'id', 'webhookDeliveryId'],
  ['/cobranca/{id}/{signature}/boleto.pdf', 'id', 'boletoPageId'],
  ['/cobranca/{id}/{signature}/boleto.pdf', 'signature', 'boletoPageSignature'],
  ['/checkout', 'id', 'checkoutId'],
  ['/checkout', 'signature', 'checkoutPageSignature'],
  ['/cobranca', 'id', 'chargePageId'],
  ['/cobranca', 'signature', 'chargePageSignature'],
];

/** Body fields that name a record: a variable filled by an earlier request, or left out. */
const BODY_IDS: Record<string, string | null> = {
  type_id: '{{tenantTypeId}}',
  tenant_id: '{{tenantId}}',
  provider_id: '{{providerId}}',
  // A Pix Automatic debit (POST /v1/pix-automatic/charges) is of the authorization created before it.
  authorization_id: '{{pixAutomaticAuthorizationId}}',
  cost_center_id: null,
};

/**
 * Per operationId, the body sent instead of the example: the refund is of the Pix paid just before, which
 * takes no bank account (the example shows a boleto paid by boleto, which needs one).
 */
const BODIES: Record<string, Json> = {
  refundTransaction: {},
  // A super_admin resetting the user just created, which needs no current password and, unlike a change
  // of one's own, leaves the collection's session open for the requests after it.
  setUserPassword: { password: 'outra-senha-longa-e-forte' },
};

function withVariables(body: Json): Json {
  if (Array.isArray(body)) return body.map(withVariables);
  if (body === null || typeof body !== 'object') return body;
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(body)) {
    const id = BODY_IDS[key];
    if (id === null) continue;
    if (id !== undefined && typeof value === 'string') out[key] = id;
    else out[key] = withVariables(value);
  }
  return out;
}

interface PostmanRequest {
  method: string;
  url: { path?: string[]; variable?: { key: string; value: string }[] };
  body?: { raw?: string };
}

/** The converter's `:param` path back to the document's `{param}` form. */
const documentPath = (path: string[]) =>
  `/${path.map((p) => (p.startsWith(':') ? `{${p.slice(1)}}` : p)).join('/')}`;

function runnable(items: Json, operationIds: Map<string, string>): Json {
  if (!Array.isArray(items)) return items;
  return items.map((node) => {
    const item = node as { [key: string]: Json };
    if (Array.isArray(item.item)) return { ...item, item: runnable(item.item, operationIds) };
    const request = item.request as unknown as PostmanRequest;
    const path = documentPath(request.url.path ?? []);
    const operationId = operationIds.get(`${request.method} ${path}`);
    if (!operationId) throw new Error(`no operation for ${request.method} ${path}`);
    for (const v of request.url.variable ?? []) {
      const match = PATH_IDS.filter(([prefix, param]) => param === v.key && path.startsWith(prefix)).sort(
        (a, b) => b[0].length - a[0].length,
      )[0];
      if (!match) throw new Error(`{${v.key}} of ${operationId}: name its variable in PATH_IDS`);
      v.value = `{{${match[2]}}}`;
    }
    if (request.body?.raw) {
      const example = BODIES[operationId] ?? withVariables(JSON.parse(request.body.raw) as Json);
      // A due date a few days ahead (a later one for the change); any other day (one a payment was made
      // on) is today.
      const due = operationId === 'updateBoletoDueDate' ? '{{newDueDate}}' : '{{dueDate}}';
      request.body.raw = JSON.stringify(example, null, 2)
        .replace(/("due_date": )"\d{4}-\d{2}-\d{2}"/g, `$1"${due}"`)
        // A Pix Automatic authorization's first due date is at least 2 days ahead (SPEC 4.11).
        .replace(/("first_due_date": )"\d{4}-\d{2}-\d{2}"/g, (all, field) =>
          operationId === 'createPixAutomaticAuthorization' ? `${field}"{{dueDate}}"` : all,
        )
        .replace(/"\d{4}-\d{2}-\d{2}"/g, '"{{today}}"');
    }
    const saves = SAVES[operationId];
    if (!saves) return item;
    const exec = [
      'if (pm.response.code < 300) {',
      '  const { data } = pm.response.json();',
      ...Object.entries(saves).map(([key, expr]) => `  pm.collectionVariables.set('${key}', ${expr});`),
      '}',
    ];
    return { ...item, event: [{ listen: 'test', script: { type: 'text/javascript', exec } }] };
  });
}

export async function buildCollection(): Promise<Json> {
  const document = (await buildOpenApiDocument()) as { paths?: Record<string, Record<string, unknown>> };
  withParameterExamples(document);
  const operationIds = new Map<string, string>();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      const id = (operation as { operationId?: string }).operationId;
      if (id) operationIds.set(`${method.toUpperCase()} ${path}`, id);
    }
  }
  const result = await new Promise<CollectionResult>((resolve, reject) => {
    convert(
      { type: 'json', data: document },
      {
        folderStrategy: 'Tags',
        requestParametersResolution: 'Example',
        exampleParametersResolution: 'Example',
      },
      (err, res) => (err || !res ? reject(new Error(err?.message ?? 'no result')) : resolve(res)),
    );
  });
  if (!result.result || !result.output?.[0]) throw new Error(`conversion failed: ${result.reason}`);
  const converted = tidy(result.output[0].data as Json) as { [key: string]: Json };
  const { _postman_id: _random, ...info } = converted.info as { [key: string]: Json };
  return {
    info,
    item: runnable(converted.item ?? [], operationIds),
    event: [{ listen: 'prerequest', script: { type: 'text/javascript', exec: PRE_REQUEST } }],
    variable: [
      { key: 'baseUrl', value: 'http://localhost:3000', type: 'string' },
      { key: 'apiKey', value: '', type: 'string', description: 'X-API-Key of the public API (clb_test_…)' },
      { key: 'sessionToken', value: '', type: 'string', description: 'data.token of POST /admin/sessions' },
      ...RUN_VARIABLES.map((v) => ({ key: v.key, value: '', type: 'string', description: v.description })),
    ],
  };
}

export function serialize(collection: Json): string {
  return `${JSON.stringify(collection, null, 2)}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--out');
  const file = at >= 0 ? (process.argv[at + 1] ?? COLLECTION_FILE) : COLLECTION_FILE;
  writeFileSync(file, serialize(await buildCollection()));
  console.log(`wrote ${file}`);
}
