import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { ERRORS } from '../../src/http/errors.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, roleTokens } from '../support/admin.ts';
import { seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

/** The parts of /openapi.json these checks read. */
interface Media {
  schema?: unknown;
  example?: unknown;
}
interface Response {
  $ref?: string;
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, Media>;
}
interface Operation {
  operationId?: string;
  tags?: string[];
  security?: Record<string, unknown>[];
  parameters?: { $ref?: string; name?: string; in?: string }[];
  requestBody?: { content?: Record<string, Media> };
  responses: Record<string, Response>;
}
interface Doc {
  info: { license?: { name?: string; identifier?: string; url?: string } };
  tags: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: Operation }>;
  components: {
    schemas: Record<
      string,
      { properties?: Record<string, { properties?: Record<string, { enum?: string[] }> }> }
    >;
    responses: Record<string, Response>;
    parameters: Record<string, { name: string; in: string; required: boolean; schema: { pattern: string } }>;
  };
}

/** SPEC 4: the operations that require Idempotency-Key, and the one where it is optional (SPEC 4.12). */
const REQUIRES_KEY = [
  'createApiKey',
  'createBoleto',
  'createCheckout',
  'createCreditCard',
  'createNotification',
  'createPanelBoleto',
  'createPix',
  'createPixAutomaticAuthorization',
  'createPixAutomaticCharge',
  'createSubaccount',
  'createSubscription',
  // SPEC 4 common rules: subtenant and API key creations require the header.
  'createSubtenant',
  'createSubtenantKey',
  'createTenant',
  'createTenantType',
  'createTestClock',
  'createUser',
  'createWebhookEndpoint',
  'refundTransaction',
  'updateBoletoDueDate',
];
const OPTIONAL_KEY = ['createCostCenter'];
const PUBLIC = [
  'getHealth',
  'getReadiness',
  'createSession',
  'getChargePage',
  'getBoletoPdf',
  'getCheckoutPage',
];

let app: TestApp;
let doc: Doc;
beforeAll(async () => {
  // The gateway's own routes only (startAdminApp adds a test route), with an administrator to log in.
  app = await startTestApp({
    BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL,
    BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
    BCRYPT_COST: '4',
  });
  doc = (await app.request('GET', '/openapi.json')).body as Doc;
});
afterAll(() => app.close());

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })),
  );
const keyParameter = (op: Operation) =>
  op.parameters?.find((p) => p.$ref?.startsWith('#/components/parameters/IdempotencyKey'))?.$ref;

describe('issue 23 item 1.1: the licence', () => {
  test('info.license is Apache-2.0 by its SPDX identifier (OpenAPI 3.1), not "no license granted"', () => {
    assert.deepEqual(doc.info.license, { name: 'Apache-2.0', identifier: 'Apache-2.0' });
  });
});

describe('issue 15 item 1: /openapi.json', () => {
  test('every operation has a unique camelCase operationId and a declared tag', () => {
    const ids = operations().map(({ name, op }) => {
      assert.match(op.operationId ?? '', /^[a-z][A-Za-z0-9]+$/, `${name}: operationId`);
      assert.ok(op.tags?.length, `${name}: tags`);
      for (const tag of op.tags ?? []) {
        assert.ok(
          doc.tags.some((t) => t.name === tag && t.description),
          `${name}: tag ${tag} is declared with a description`,
        );
      }
      return op.operationId;
    });
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    assert.ok(
      ids.includes('createPix') && ids.includes('listTransactions') && ids.includes('getTransaction'),
    );
  });

  test('public operations say `security: []`; every other one names its scheme', () => {
    for (const { name, op } of operations()) {
      if (PUBLIC.includes(op.operationId ?? '')) assert.deepEqual(op.security, [], name);
      else assert.equal(op.security?.length, 1, name);
    }
  });

  test('every operation documents a 2xx, with an example unless it is binary', () => {
    for (const { name, op } of operations()) {
      const ok = Object.entries(op.responses).filter(([status]) => status.startsWith('2'));
      assert.ok(ok.length > 0, `${name}: a 2xx`);
      for (const [status, response] of ok) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          if (type === 'application/pdf') continue;
          assert.notEqual(media.example, undefined, `${name} ${status} ${type}: example`);
        }
      }
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
        assert.notEqual(media.example, undefined, `${name} request ${type}: example`);
      }
    }
  });

  test('every example matches its schema; no public charge example sends tenant_id', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ ...doc, $id: 'openapi.json' });
    const pointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');
    let checked = 0;
    const check = (at: string, media: Media | undefined) => {
      if (media?.example === undefined || media.schema === undefined) return;
      const ok = ajv.validate({ $ref: `openapi.json#${at}/schema` }, media.example);
      assert.ok(ok, `${at}: ${ajv.errorsText()}`);
      checked++;
    };
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const at = `/paths/${pointer(path)}/${method}`;
        check(`${at}/requestBody/content/application~1json`, op.requestBody?.content?.['application/json']);
        for (const [status, response] of Object.entries(op.responses)) {
          check(
            `${at}/responses/${status}/content/application~1json`,
            response.content?.['application/json'],
          );
        }
      }
    }
    for (const [name, response] of Object.entries(doc.components.responses)) {
      check(
        `/components/responses/${name}/content/application~1json`,
        response.content?.['application/json'],
      );
    }
    for (const [kind, item] of Object.entries(doc.webhooks)) {
      check(
        `/webhooks/${pointer(kind)}/post/requestBody/content/application~1json`,
        item.post.requestBody?.content?.['application/json'],
      );
    }
    assert.ok(checked > 60, `checked ${checked} examples`);
    for (const path of ['/v1/pix', '/v1/boleto']) {
      const example = doc.paths[path]?.post?.requestBody?.content?.['application/json']?.example;
      assert.ok(example && typeof example === 'object' && !('tenant_id' in example), `${path}: no tenant_id`);
    }
  });

  test('error statuses refer to named responses of the ErrorEnvelope, whose `code` is the SPEC 7 enum', () => {
    const code = doc.components.schemas.ErrorEnvelope?.properties?.error?.properties?.code;
    assert.deepEqual([...(code?.enum ?? [])].sort(), Object.keys(ERRORS).sort());
    for (const [name, response] of Object.entries(doc.components.responses)) {
      assert.deepEqual(
        response.content?.['application/json']?.schema,
        { $ref: '#/components/schemas/ErrorEnvelope' },
        name,
      );
      assert.ok(response.description && response.description !== 'Default Response', `${name}: description`);
      assert.ok(response.headers?.['X-Request-ID'], `${name}: X-Request-ID`);
    }
    for (const { name, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        // The payer pages answer their 404 as a Portuguese HTML page, not the envelope.
        if (response.content && !response.content['application/json']) continue;
        assert.match(response.$ref ?? '', /^#\/components\/responses\/[A-Za-z]+$/, `${name} ${status}`);
        assert.ok(
          doc.components.responses[response.$ref?.split('/').pop() ?? ''],
          `${name} ${status}: exists`,
        );
      }
    }
  });

  test('every inline response documents X-Request-ID; idempotent 2xx document Idempotency-Replayed', () => {
    for (const { name, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (response.$ref) continue;
        assert.ok(response.headers?.['X-Request-ID'], `${name} ${status}: X-Request-ID`);
        if (status.startsWith('2') && keyParameter(op)) {
          assert.ok(response.headers?.['Idempotency-Replayed'], `${name} ${status}: Idempotency-Replayed`);
        }
      }
    }
  });

  test('the Idempotency-Key header parameter is on exactly the operations that take it', () => {
    const required = doc.components.parameters.IdempotencyKey;
    assert.deepEqual(
      { name: required?.name, in: required?.in, required: required?.required },
      { name: 'Idempotency-Key', in: 'header', required: true },
    );
    assert.equal(required?.schema.pattern, '^[A-Za-z0-9._:-]{1,128}$');
    assert.equal(doc.components.parameters.IdempotencyKeyOptional?.required, false);
    const withKey = (suffix: string) =>
      operations()
        .filter(({ op }) => keyParameter(op) === `#/components/parameters/IdempotencyKey${suffix}`)
        .map(({ op }) => op.operationId)
        .sort();
    assert.deepEqual(withKey(''), REQUIRES_KEY);
    assert.deepEqual(withKey('Optional'), OPTIONAL_KEY);
  });

  test('the document and the server agree on the key: required ones refuse a request without it', async () => {
    const key = await seedTenantAndKey(app.gateway.ctx);
    const tokens = await roleTokens(app);
    const credentials = (op: Operation): Record<string, string> =>
      op.security?.some((s) => 'ApiKey' in s) ? { 'x-api-key': key.key } : tokens.super_admin;
    let checked = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const ref = keyParameter(op);
        if (!ref) continue;
        const res = await app.request(method.toUpperCase(), path.replace(/\{[^}]+\}/g, 'txn_unknown'), {
          headers: credentials(op),
          json: op.requestBody?.content?.['application/json']?.example,
        });
        if (ref.endsWith('Optional')) {
          assert.equal(res.status, 201, `${op.operationId}: created without a key\n${res.text}`);
        } else {
          assert.equal(res.status, 400, `${op.operationId}: ${res.text}`);
          assert.equal(res.body.error.code, 'idempotency_key_required', `${op.operationId}`);
        }
        checked++;
      }
    }
    assert.equal(checked, REQUIRES_KEY.length + OPTIONAL_KEY.length);
  });

  test('the webhooks section describes transaction.created and transaction.updated', () => {
    assert.deepEqual(Object.keys(doc.webhooks).sort(), ['transaction.created', 'transaction.updated']);
    for (const [kind, item] of Object.entries(doc.webhooks)) {
      const media = item.post.requestBody?.content?.['application/json'];
      assert.deepEqual(media?.schema, { $ref: '#/components/schemas/TransactionWebhookEvent' }, kind);
      assert.equal((media?.example as { type?: string } | undefined)?.type, kind);
      assert.ok(item.post.operationId && item.post.tags?.includes('Webhooks'), kind);
      assert.deepEqual(
        item.post.parameters?.map((p) => p.name),
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
      );
    }
  });
});
