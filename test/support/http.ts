import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { createGateway, type Gateway } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createTestDatabase, type TestDatabase } from './databases.ts';

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The body's bytes, for binary answers (the boleto PDF). */
  bytes: Buffer;
  /** Parsed JSON body, or undefined when the body is not JSON. Tests assert on it field by field. */
  // biome-ignore lint/suspicious/noExplicitAny: arbitrary response JSON, already validated against /openapi.json
  body: any;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Serialized with JSON.stringify. */
  json?: unknown;
  /** Sent as is (for malformed bodies); Content-Type defaults to application/json. */
  raw?: string | Uint8Array;
}

export interface TestApp {
  gateway: Gateway;
  db: TestDatabase;
  baseUrl: string;
  /** Every log line the gateway wrote, raw. */
  logs: string[];
  /**
   * Waits until every projection has applied every event committed so far (TEST_PROJECTIONS=async runs
   * them all by catch-up): call it before reading a list, summary or audit right after a write. Never sleep.
   */
  settle(): Promise<void>;
  /** A request over a real socket; the response is checked against /openapi.json before it is returned. */
  request(method: string, path: string, opts?: RequestOptions): Promise<TestResponse>;
  close(): Promise<void>;
}

/**
 * The gateway over a real socket on a fresh PostgreSQL database (DESIGN.md test/http). `setup` runs after
 * the gateway is built and before it listens (tests can register extra routes there).
 */
/** The projection mode under test: `TEST_PROJECTIONS=async` runs the suites as under EventStoreDB. */
export function testProjectionMode(): 'inline' | 'async' {
  return process.env.TEST_PROJECTIONS === 'async' ? 'async' : 'inline';
}

export async function startTestApp(
  env: Record<string, string> = {},
  setup?: (gateway: Gateway) => void | Promise<void>,
  /** Another instance's database (a restart, or a second process with another configuration): never dropped here. */
  shared?: TestDatabase,
): Promise<TestApp> {
  const db = shared ?? (await createTestDatabase());
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const config = loadConfig({
    DATABASE_URL: db.url,
    PORT: '0',
    LOG_LEVEL: 'info',
    DATABASE_POOL_SIZE: '10',
    DOCUMENT_SIGNING_SECRET: 'test-harness-document-signing-secret-0123456789',
    // Suites check many bad credentials from 127.0.0.1; the failed-authentication limit has its own test.
    AUTH_FAILURES_PER_MINUTE: '1000000',
    // Suites run the provider emulator on loopback (any port) behind production records too (issue 23 item
    // 2.3); the host rule has its own tests, which set this to nothing.
    PROVIDER_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
    PROJECTIONS: testProjectionMode(),
    ...env,
  });
  const gateway = await createGateway(config, createLogger('info', sink));
  await setup?.(gateway);
  await gateway.http.listen({ port: 0, host: '127.0.0.1' });
  const { port } = gateway.http.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const validate = await openApiValidator(baseUrl);
  // As a deployed instance (role all) does: read models follow the log in the background.
  if (config.PROJECTIONS === 'async') gateway.runner.start();
  const settle = () => gateway.runner.reachHead(gateway.runner.projections);

  return {
    gateway,
    db,
    baseUrl,
    logs,
    settle,
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      let body: string | Blob | undefined;
      if (opts.json !== undefined) body = JSON.stringify(opts.json);
      if (opts.raw !== undefined)
        body = typeof opts.raw === 'string' ? opts.raw : new Blob([new Uint8Array(opts.raw)]);
      if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
        headers['content-type'] = 'application/json';
      }
      const res = await fetch(baseUrl + path, { method, headers, body });
      const bytes = Buffer.from(await res.arrayBuffer());
      const text = bytes.toString('utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      const response: TestResponse = { status: res.status, headers: res.headers, text, bytes, body: parsed };
      assert.ok(res.headers.get('x-request-id'), `${method} ${path}: every response carries X-Request-ID`);
      validate(method, path, response);
      return response;
    },
    async close() {
      await gateway.close();
      if (!shared) await db.drop();
    },
  };
}

type OpenApiResponse = { $ref?: string; content?: Record<string, { schema?: unknown }> };
type OpenApiDoc = {
  paths: Record<string, Record<string, { responses?: Record<string, OpenApiResponse> }>>;
  components?: { responses?: Record<string, OpenApiResponse> };
};

/**
 * Issue 3: every response produced by the HTTP tests is validated against /openapi.json, so the document
 * cannot drift from the code. A route missing from the document may only answer the 404 envelope.
 */
async function openApiValidator(baseUrl: string) {
  const doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as OpenApiDoc;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ ...doc, $id: 'openapi.json' });
  const routes = Object.keys(doc.paths).map((template) => ({
    template,
    regex: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));
  const pointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

  return (method: string, path: string, res: TestResponse) => {
    const pathname = new URL(path, baseUrl).pathname;
    if (pathname === '/openapi.json' || pathname.startsWith('/docs')) return;
    const route = routes.find((r) => r.regex.test(pathname));
    const operation = route ? doc.paths[route.template]?.[method.toLowerCase()] : undefined;
    if (!operation) {
      assert.equal(
        res.status,
        404,
        `${method} ${pathname} is not in /openapi.json but answered ${res.status}`,
      );
      assert.ok(
        ajv.validate({ $ref: 'openapi.json#/components/schemas/ErrorEnvelope' }, res.body),
        'the 404 envelope',
      );
      return;
    }
    const status = String(res.status);
    const key = operation.responses?.[status] ? status : 'default';
    let response = operation.responses?.[key];
    assert.ok(response, `${method} ${route?.template}: status ${status} is not documented`);
    let at = `openapi.json#/paths/${pointer(route?.template ?? '')}/${method.toLowerCase()}/responses/${key}`;
    // Error statuses refer to the named responses under components (one per status, SPEC 7).
    if (response.$ref) {
      const name = response.$ref.replace('#/components/responses/', '');
      response = doc.components?.responses?.[name];
      assert.ok(
        response,
        `${method} ${route?.template} ${status}: ${name} is not under components.responses`,
      );
      at = `openapi.json#/components/responses/${pointer(name)}`;
    }
    const type = res.headers.get('content-type')?.split(';')[0] ?? '';
    if (!response.content) return;
    assert.ok(
      response.content[type],
      `${method} ${route?.template} ${status}: content type ${type} is not documented`,
    );
    if (type !== 'application/json') return;
    const ok = ajv.validate({ $ref: `${at}/content/${pointer(type)}/schema` }, res.body);
    assert.ok(
      ok,
      `${method} ${route?.template} ${status} does not match /openapi.json: ${ajv.errorsText()}\n${res.text.slice(0, 500)}`,
    );
  };
}
