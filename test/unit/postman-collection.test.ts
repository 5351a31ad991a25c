import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'vitest';
import { buildCollection, COLLECTION_FILE, RUN_VARIABLES, serialize } from '../../scripts/collection.ts';
import { buildOpenApiDocument } from '../../scripts/openapi.ts';

interface Request {
  method: string;
  url: { path: string[]; variable?: { key: string; value: string }[] };
  header?: { key: string; value: string }[];
  auth?: { type: string; apikey?: { key: string; value: string }[]; bearer?: { value: string }[] } | null;
  body?: { raw?: string };
}

interface Collection {
  info: { schema: string };
  item: {
    name: string;
    item: { name: string; request: Request; event?: { listen: string; script: { exec: string[] } }[] }[];
  }[];
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
      ['baseUrl', 'apiKey', 'sessionToken', ...RUN_VARIABLES.map((v) => v.key)],
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

  test('issue 23 item 1.9: no request carries a fixed date or an invented id; each variable it uses is set by a request of the collection', () => {
    const collection = JSON.parse(readFileSync(COLLECTION_FILE, 'utf8')) as Collection;
    // A folder per tag; an operation without a tag would sit at the top level.
    const items = collection.item.flatMap((f) => f.item ?? [f as unknown as (typeof f.item)[number]]);
    // What the user sets (baseUrl, apiKey), Postman's own ($guid), and the pre-request script's dates.
    const given = new Set(['baseUrl', 'apiKey', '$guid', 'today', 'dueDate', 'newDueDate']);
    const saved = new Set(
      items.flatMap((i) =>
        (i.event ?? []).flatMap((e) =>
          e.script.exec.flatMap((line) =>
            [...line.matchAll(/collectionVariables\.set\('(\w+)'/g)].map((m) => m[1]),
          ),
        ),
      ),
    );
    for (const { name, request } of items) {
      const sent = [
        request.body?.raw ?? '',
        ...(request.url.variable ?? []).map((v) => v.value),
        ...(request.header ?? []).map((h) => h.value),
      ].join('\n');
      assert.doesNotMatch(sent, /\b\d{4}-\d{2}-\d{2}\b/, `${name}: a fixed date goes past`);
      // Record ids of the gateway (txn_, ten_, tty_, prv_, cc_, usr_, key_, whe_, whd_, rul_): never typed in.
      assert.doesNotMatch(
        sent,
        /\b(txn|ten|tty|prv|cc|usr|key|whe|whd|rul)_[0-9a-z]{16,}\b/,
        `${name}: an invented id`,
      );
      assert.doesNotMatch(sent, /<\w+>/, `${name}: a placeholder left to replace`);
      for (const [, variable = ''] of sent.matchAll(/\{\{([^}]+)\}\}/g)) {
        assert.ok(
          given.has(variable) || saved.has(variable),
          `${name}: {{${variable}}} is set by no request`,
        );
      }
    }
    // The public flow's variables are set before they are used, in the collection's order.
    const seen = new Set(given);
    for (const { name, request, event } of items.filter((i) => i.request.auth?.type !== 'bearer')) {
      for (const [, variable = ''] of JSON.stringify(request).matchAll(/\{\{([^}]+)\}\}/g)) {
        if (variable !== 'sessionToken')
          assert.ok(seen.has(variable), `${name}: {{${variable}}} before it is set`);
      }
      for (const line of (event ?? []).flatMap((e) => e.script.exec)) {
        for (const m of line.matchAll(/collectionVariables\.set\('(\w+)'/g)) seen.add(m[1] ?? '');
      }
    }
  });
});
