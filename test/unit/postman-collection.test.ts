import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'vitest';
import { buildCollection, COLLECTION_FILE, serialize } from '../../scripts/collection.ts';
import { buildOpenApiDocument } from '../../scripts/openapi.ts';

interface Request {
  method: string;
  header?: { key: string; value: string }[];
  auth?: { type: string; apikey?: { key: string; value: string }[]; bearer?: { value: string }[] } | null;
  body?: { raw?: string };
}

interface Collection {
  info: { schema: string };
  item: { name: string; item: { name: string; request: Request }[] }[];
  variable: { key: string }[];
}

interface Operation {
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { in?: string; name?: string; $ref?: string }[];
  requestBody?: unknown;
}

describe('Postman collection (issue 15 item 4)', () => {
  test(`${COLLECTION_FILE} is what npm run collection writes from the current OpenAPI document`, async () => {
    const committed = readFileSync(COLLECTION_FILE, 'utf8');
    assert.ok(
      serialize(await buildCollection()) === committed,
      `${COLLECTION_FILE} is stale: run npm run collection and commit it`,
    );
  });

  test('one folder per tag, one request per operation, with auth variables and a fresh Idempotency-Key', async () => {
    const collection = JSON.parse(readFileSync(COLLECTION_FILE, 'utf8')) as Collection;
    const doc = (await buildOpenApiDocument()) as {
      tags: { name: string }[];
      paths: Record<string, Record<string, Operation>>;
    };
    assert.equal(
      collection.info.schema,
      'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
    );
    assert.deepEqual(
      collection.variable.map((v) => v.key),
      ['baseUrl', 'apiKey', 'sessionToken'],
    );
    assert.deepEqual(collection.item.map((f) => f.name).sort(), doc.tags.map((t) => t.name).sort());

    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
    const requests = collection.item.flatMap((f) => f.item.map((i) => i.request));
    assert.equal(requests.length, operations.length);
    const count = (pred: (r: Request) => boolean) => requests.filter(pred).length;
    // The document refers to components/parameters/IdempotencyKey (required) or …Optional.
    const takesKey = (o: Operation) =>
      o.parameters?.some(
        (p) => p.$ref?.startsWith('#/components/parameters/IdempotencyKey') || p.name === 'Idempotency-Key',
      );
    const guid = (r: Request) =>
      r.header?.some((h) => h.key === 'Idempotency-Key' && h.value === '{{$guid}}');
    assert.equal(
      count((r) => Boolean(guid(r))),
      operations.filter(takesKey).length,
    );
    const secured = (scheme: string) => operations.filter((o) => o.security?.some((s) => scheme in s)).length;
    const apiKey = (r: Request) => r.auth?.apikey?.some((a) => a.value === '{{apiKey}}') ?? false;
    const session = (r: Request) => r.auth?.bearer?.some((a) => a.value === '{{sessionToken}}') ?? false;
    assert.equal(count(apiKey), secured('ApiKey'));
    assert.equal(count(session), secured('Session'));
    // Every operation with a JSON body carries its example.
    assert.equal(
      count((r) => Boolean(r.body?.raw?.startsWith('{'))),
      operations.filter((o) => o.requestBody).length,
    );
  });
});
