import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { z } from 'zod';
import { dataEnvelope } from '../../src/contract/envelopes.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, idem, logIn, startAdminApp } from '../support/admin.ts';
import { pixBody } from '../support/charges.ts';
import { seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp, type TestResponse } from '../support/http.ts';

/**
 * Issue 12 item 1: a NUL character (U+0000, `%00`) cannot be stored by PostgreSQL (text and jsonb refuse
 * it), so before the fix it reached the driver and came back as 500 internal_error with the payer's data
 * in the log. The edge now refuses it on every route: body field -> 422 validation_error naming the field,
 * query parameter -> 422 validation_error (SPEC 7 "invalid field"), path id -> 404 not_found (SPEC 4.4:
 * no such id). No event is appended by a refused request.
 */

/** A JSON Schema node of /openapi.json, as far as this walk reads it. */
interface SchemaNode {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  allOf?: SchemaNode[];
}
interface Operation {
  parameters?: { in: string; name: string; schema?: SchemaNode }[];
  requestBody?: { content?: Record<string, { schema?: SchemaNode }> };
  security?: Record<string, unknown>[];
}
interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, SchemaNode> };
}

const NUL = '\u0000';

/** Every string leaf of a body schema, as the path of keys (arrays as index 0) to reach it. */
function stringLeaves(doc: OpenApi, node: SchemaNode | undefined, path: (string | number)[] = []) {
  const out: (string | number)[][] = [];
  const seen = new Set<SchemaNode>();
  const walk = (n: SchemaNode | undefined, at: (string | number)[]) => {
    if (!n || seen.has(n) || at.length > 8) return;
    if (n.$ref) {
      walk(doc.components?.schemas?.[n.$ref.split('/').pop() ?? ''], at);
      return;
    }
    seen.add(n);
    for (const branch of [...(n.anyOf ?? []), ...(n.oneOf ?? []), ...(n.allOf ?? [])]) walk(branch, at);
    const types = Array.isArray(n.type) ? n.type : [n.type];
    if (types.includes('string')) out.push(at);
    for (const [k, child] of Object.entries(n.properties ?? {})) walk(child, [...at, k]);
    if (n.items) walk(n.items, [...at, 0]);
    seen.delete(n);
  };
  walk(node, path);
  // The same leaf may be reached through two branches of a union.
  return [...new Map(out.map((p) => [p.join('.'), p])).values()];
}

/** `{ a: { b: [ NUL ] } }` for the path a.b.0: only the field under test, so nothing else can be at fault. */
function bodyWith(path: (string | number)[]): unknown {
  let value: unknown = `x${NUL}y`;
  for (const segment of [...path].reverse()) {
    value = typeof segment === 'number' ? [value] : { [segment]: value };
  }
  return value;
}

async function eventCount(app: TestApp): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*)::text as n from events`.execute(app.db.db);
  return Number(rows[0]?.n);
}

function assertRefused(res: TestResponse, what: string, status: number, code: string, param?: string) {
  assert.ok(res.status < 500, `${what}: ${res.status} ${res.text}`);
  assert.equal(res.status, status, `${what}: ${res.text}`);
  // The payer's charge page answers its 404 as a Portuguese HTML page, not the API's JSON.
  if (res.headers.get('content-type')?.startsWith('text/html')) {
    assert.equal(status, 404, what);
    assert.match(res.text, /lang="pt-BR"/, what);
    return;
  }
  assert.equal(res.body?.error?.code, code, `${what}: ${res.text}`);
  if (param !== undefined) assert.equal(res.body.error.param, param, `${what}: ${res.text}`);
}

describe('Issue 12 item 1: NUL characters are refused at the edge on every route (SPEC 7)', () => {
  let app: TestApp;
  let key: string;
  let session: Record<string, string>;
  let doc: OpenApi;
  beforeAll(async () => {
    // Every operation and field of the document from one key and one session: far above SPEC 8's 120 a minute.
    app = await startAdminApp({ ENABLE_SIMULATOR: 'true', RATE_LIMIT_PER_MINUTE: '100000' });
    key = (await seedTenantAndKey(app.gateway.ctx)).key;
    session = bearer(await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD));
    doc = (await app.request('GET', '/openapi.json')).body as OpenApi;
  });
  afterAll(() => app.close());

  /** The credential the operation documents, plus an Idempotency-Key for creations. */
  function credentials(op: Operation): Record<string, string> {
    const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
    if (schemes.includes('ApiKey')) return { 'x-api-key': key, ...idem() };
    if (schemes.includes('Session')) return { ...session, ...idem() };
    return idem();
  }

  const operations = () =>
    Object.entries(doc.paths).flatMap(([template, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ template, method: method.toUpperCase(), op })),
    );

  /** Path parameters filled with a harmless value, except `nul` (filled with a NUL). */
  const fill = (template: string, nul?: string) =>
    template.replace(/\{([^}]+)\}/g, (_m, name: string) => (name === nul ? 'txn_%00' : 'txn_unknown'));

  test('SPEC 7 / 4.4: a NUL in any path parameter is 404 not_found, any query parameter 422 validation_error', async () => {
    const before = await eventCount(app);
    let checked = 0;
    for (const { template, method, op } of operations()) {
      for (const p of op.parameters ?? []) {
        if (p.in === 'path') {
          const res = await app.request(method, fill(template, p.name), { headers: credentials(op) });
          assertRefused(res, `${method} ${template} path ${p.name}`, 404, 'not_found');
          checked++;
        } else if (p.in === 'query') {
          const path = `${fill(template)}?${p.name}=a%00b`;
          const res = await app.request(method, path, { headers: credentials(op) });
          assertRefused(
            res,
            `${method} ${template} query ${p.name}`,
            422,
            'validation_error',
            `query.${p.name}`,
          );
          checked++;
        }
      }
    }
    assert.ok(checked >= 20, `walked ${checked} parameters`);
    assert.equal(await eventCount(app), before, 'no event appended by a refused request');
  });

  test('SPEC 7: a NUL in any string field of any JSON body is 422 validation_error naming the field', async () => {
    const before = await eventCount(app);
    let checked = 0;
    for (const { template, method, op } of operations()) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      for (const leaf of stringLeaves(doc, schema)) {
        const res = await app.request(method, fill(template), {
          headers: credentials(op),
          json: bodyWith(leaf),
        });
        assertRefused(
          res,
          `${method} ${template} body ${leaf.join('.')}`,
          422,
          'validation_error',
          leaf.join('.'),
        );
        checked++;
      }
    }
    assert.ok(checked >= 40, `walked ${checked} body fields`);
    assert.equal(await eventCount(app), before, 'no event appended by a refused request');
  });

  test('SPEC 4.1 / 7: a complete Pix body with a NUL in the payer name is 422 validation_error, not 500', async () => {
    const before = await eventCount(app);
    const body = pixBody();
    const customer = body.customer as Record<string, unknown>;
    for (const json of [
      { ...body, customer: { ...customer, name: `Maria${NUL}Silva` } },
      { ...body, reference: `order${NUL}` },
      { ...body, customer: { ...customer, email: `maria${NUL}@example.com` } },
    ]) {
      const res = await app.request('POST', '/v1/pix', { headers: { 'x-api-key': key, ...idem() }, json });
      assertRefused(res, 'POST /v1/pix', 422, 'validation_error');
    }
    assert.equal(await eventCount(app), before);
  });

  test('SPEC 4.3 / 4.4: ?reference=%00 is 422 and /v1/transactions/txn_%00 is 404', async () => {
    const list = await app.request('GET', '/v1/transactions?reference=%00', {
      headers: { 'x-api-key': key },
    });
    assertRefused(list, 'list', 422, 'validation_error', 'query.reference');
    const one = await app.request('GET', '/v1/transactions/txn_%00', { headers: { 'x-api-key': key } });
    assertRefused(one, 'read', 404, 'not_found');
    const snapshot = await app.request('GET', '/v1/transactions/txn_%00/request', {
      headers: { 'x-api-key': key },
    });
    assertRefused(snapshot, 'request', 404, 'not_found');
  });

  test('SPEC 5.9 / 7: a login with a NUL in e-mail or password is refused without a 5xx', async () => {
    for (const json of [
      { email: `root${NUL}@example.com`, password: ADMIN_PASSWORD },
      { email: ADMIN_EMAIL, password: `${ADMIN_PASSWORD}${NUL}` },
    ]) {
      const res = await app.request('POST', '/admin/sessions', { json });
      assertRefused(
        res,
        'login',
        422,
        'validation_error',
        Object.keys(json).find((k) => json[k as keyof typeof json].includes(NUL)),
      );
    }
  });

  test('a NUL in an object key is refused like one in a value (jsonb cannot store either)', async () => {
    const res = await app.request('POST', '/v1/pix', {
      headers: { 'x-api-key': key, ...idem() },
      json: { ...pixBody(), [`a${NUL}`]: 'x' },
    });
    assertRefused(res, 'key', 422, 'validation_error');
  });
});

describe('Issue 12 item 1: database errors never write values into the log', () => {
  let app: TestApp;
  const cpf = '390.533.447-05';
  const email = 'payer.secret@example.com';
  beforeAll(async () => {
    app = await startTestApp({}, (gw) => {
      // A handler that sends payer data into a statement PostgreSQL refuses, as a buggy handler would.
      gw.http.post(
        '/test/driver-error',
        {
          schema: {
            body: z.strictObject({ cpf: z.string(), email: z.string() }),
            response: { 200: dataEnvelope(z.object({})) },
          },
        },
        async (request) => {
          await sql`select ${request.body.email}::int as a, ${request.body.cpf}::int as b`.execute(gw.ctx.db);
          return { data: {} };
        },
      );
    });
  });
  afterAll(() => app.close());

  test('a driver error is logged by its code and name only, never its message, detail or parameters', async () => {
    const res = await app.request('POST', '/test/driver-error', { json: { cpf, email } });
    assert.equal(res.status, 500);
    assert.equal(res.body.error.code, 'internal_error');
    const id = res.headers.get('x-request-id') ?? '-';
    const line = app.logs.find((l) => l.includes(id) && l.includes('"err"'));
    assert.ok(line, 'the error is logged with its request id');
    assert.match(line, /"code":"22P02"/);
    for (const value of [cpf, email, 'invalid input syntax']) {
      assert.ok(!app.logs.some((l) => l.includes(value)), `no log line contains ${value}`);
    }
  });
});
