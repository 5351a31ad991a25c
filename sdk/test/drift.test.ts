import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { z } from 'zod';
import { startTestApp, type TestApp } from '../../test/support/http.ts';
import { Calebe, OPERATIONS, type Operation } from '../src/index.ts';

/**
 * Issue 15 item 3 "checked for drift" and SPEC 9 "one method per operation": the operations of a served
 * gateway's /openapi.json against the SDK's table. An operation without a method fails here, and so does a
 * method whose HTTP method, path, credential, Idempotency-Key rule, query parameters or body disagree with
 * the document.
 */

interface DocSchema {
  properties?: Record<string, unknown>;
  anyOf?: DocSchema[];
}

interface DocOperation {
  operationId: string;
  security?: Record<string, unknown>[];
  parameters?: ({ $ref?: string; in?: string; name?: string } | undefined)[];
  requestBody?: unknown;
}

let app: TestApp;
let served: Map<string, { method: string; path: string; op: DocOperation }>;

beforeAll(async () => {
  app = await startTestApp();
  const doc = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, DocOperation>>;
  };
  served = new Map();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      served.set(op.operationId, { method: method.toUpperCase(), path, op });
    }
  }
});
afterAll(() => app.close());

const table = OPERATIONS as Record<string, Operation>;

describe('SPEC 9: one SDK method per operation of /openapi.json', () => {
  test('every operation of the served document has a method, and every method an operation', () => {
    assert.ok(served.size >= 61, `the document lists ${served.size} operations`);
    const missing = [...served.keys()].filter((id) => !(id in table)).sort();
    assert.deepEqual(missing, [], `operations without an SDK method: ${missing.join(', ')}`);
    const stale = Object.keys(table).filter((id) => !served.has(id));
    assert.deepEqual(stale, [], `SDK methods of no operation: ${stale.join(', ')}`);
    const client = new Calebe({ baseUrl: app.baseUrl });
    for (const id of served.keys()) {
      assert.equal(typeof (client as unknown as Record<string, unknown>)[id], 'function', id);
    }
  });

  test('each method sends what the document describes: method, path, credential, Idempotency-Key', () => {
    for (const [id, { method, path, op }] of served) {
      const sdk = table[id];
      assert.ok(sdk, id);
      assert.equal(sdk.method, method, `${id}: method`);
      assert.equal(sdk.path, path, `${id}: path`);
      const scheme = Object.keys(op.security?.[0] ?? {})[0];
      const auth = scheme === 'ApiKey' ? 'api_key' : scheme === 'Session' ? 'session' : 'none';
      assert.equal(sdk.auth, auth, `${id}: credential`);
      const refs = (op.parameters ?? []).map((p) => p?.$ref ?? '');
      const idempotency = refs.includes('#/components/parameters/IdempotencyKey')
        ? 'required'
        : refs.includes('#/components/parameters/IdempotencyKeyOptional')
          ? 'optional'
          : undefined;
      assert.equal(sdk.idempotency, idempotency, `${id}: Idempotency-Key`);
    }
  });

  test('each method validates the parameters and body the document describes', () => {
    const keys = (schema: z.ZodType | undefined) =>
      Object.keys((schema as unknown as { shape?: object } | undefined)?.shape ?? {}).sort();
    for (const [id, { op }] of served) {
      const sdk = table[id] as Operation;
      const params = (where: string) =>
        (op.parameters ?? [])
          .filter((p) => p?.in === where)
          .map((p) => p?.name ?? '')
          .sort();
      assert.deepEqual(keys(sdk.query), params('query'), `${id}: query parameters`);
      assert.deepEqual(keys(sdk.params), params('path'), `${id}: path parameters`);
      assert.equal(sdk.body !== undefined, op.requestBody !== undefined, `${id}: request body`);
      if (sdk.body) {
        const schema = (op.requestBody as { content: Record<string, { schema: DocSchema }> }).content[
          'application/json'
        ]?.schema;
        // A nullable body is documented with anyOf [object, null]; the SDK's schema as optional/nullable.
        const documented = schema?.properties ?? schema?.anyOf?.find((s) => s.properties)?.properties;
        let own: z.ZodType = sdk.body;
        while ('unwrap' in own && typeof own.unwrap === 'function') own = own.unwrap() as z.ZodType;
        assert.ok(documented, `${id}: the document describes the body's fields`);
        assert.deepEqual(keys(own), Object.keys(documented).sort(), `${id}: body fields`);
      }
    }
  });
});
