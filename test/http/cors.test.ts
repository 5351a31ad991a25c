import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { z } from 'zod';
import type { Gateway } from '../../src/app.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { dataEnvelope } from '../../src/contract/envelopes.ts';
import { apiKeyPrincipal } from '../../src/http/auth.ts';
import { seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

const PANEL = 'https://panel.example.com';
const DEV = 'http://localhost:5173';
const EVIL = 'https://evil.example.com';

function protectedRoute(gateway: Gateway) {
  gateway.http.get(
    '/test/cors',
    {
      config: { access: { auth: 'api_key', scopes: ['transactions:read'] } },
      schema: { response: { 200: dataEnvelope(z.object({ tenant_id: z.string() })) } },
    },
    async (request) => ({ data: { tenant_id: apiKeyPrincipal(request).tenantId } }),
  );
}

/**
 * A browser preflight. Sent with fetch directly: OPTIONS is CORS protocol, not an operation of the API,
 * so /openapi.json (which the test client checks every response against) does not list it.
 */
async function preflight(app: TestApp, path: string, origin: string, requestHeaders = 'authorization') {
  return fetch(app.baseUrl + path, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': requestHeaders,
    },
  });
}

describe('CORS allowlist (SPEC 5.8, 7 origin_denied)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ CORS_ORIGINS: `${PANEL}, ${DEV}` }, protectedRoute);
  });
  afterAll(() => app.close());

  test('SPEC 5.8: an allowed origin gets the CORS headers', async () => {
    for (const origin of [PANEL, DEV]) {
      const res = await app.request('GET', '/health', { headers: { origin } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('access-control-allow-origin'), origin);
      assert.match(res.headers.get('vary') ?? '', /Origin/);
      assert.match(res.headers.get('access-control-expose-headers') ?? '', /X-Request-ID/i);
    }
  });

  test('SPEC 5.8: a preflight from an allowed origin is answered with the allowed methods and headers', async () => {
    const res = await preflight(app, '/test/cors', PANEL, 'authorization,content-type,idempotency-key');
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), PANEL);
    assert.match(res.headers.get('access-control-allow-methods') ?? '', /POST/);
    const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    for (const header of ['authorization', 'content-type', 'idempotency-key']) {
      assert.ok(allowed.includes(header), header);
    }
    // Keys live only on the integrator's server (SPEC 5.1): a browser is not invited to send one.
    assert.ok(!allowed.includes('x-api-key'));
  });

  test('SPEC 7 origin_denied: another origin is refused with 403 in the envelope', async () => {
    for (const origin of [EVIL, 'null', `${PANEL}.evil.com`, 'http://panel.example.com', `${PANEL}:8443`]) {
      const res = await app.request('GET', '/health', { headers: { origin } });
      assert.equal(res.status, 403, origin);
      assert.equal(res.body.error.code, 'origin_denied', origin);
      assert.equal(res.headers.get('access-control-allow-origin'), null, origin);
    }
  });

  test('SPEC 7 origin_denied: a preflight from a denied origin is refused too', async () => {
    const res = await preflight(app, '/test/cors', EVIL);
    assert.equal(res.status, 403);
    assert.equal(res.headers.get('access-control-allow-origin'), null);
    const body = await res.json();
    assert.equal(body.error.code, 'origin_denied');
    assert.equal(body.error.request_id, res.headers.get('x-request-id'));
  });

  test('SPEC 5.8: the origin is checked before authentication; CORS is not authentication', async () => {
    const { key } = await seedTenantAndKey(app.gateway.ctx, { scopes: ['transactions:read'] });
    // A denied origin learns nothing about the credential: 403 whether the key is valid or not.
    for (const headers of [
      { origin: EVIL, 'x-api-key': key },
      { origin: EVIL, 'x-api-key': 'sk_test_bad' },
    ]) {
      const res = await app.request('GET', '/test/cors', { headers });
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'origin_denied');
    }
    // An allowed origin still needs a credential.
    const anonymous = await app.request('GET', '/test/cors', { headers: { origin: PANEL } });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.error.code, 'unauthorized');
    const ok = await app.request('GET', '/test/cors', { headers: { origin: PANEL, 'x-api-key': key } });
    assert.equal(ok.status, 200);
  });

  test('SPEC 5.8: requests without Origin (server to server) are unaffected', async () => {
    const { key } = await seedTenantAndKey(app.gateway.ctx, { scopes: ['transactions:read'] });
    const res = await app.request('GET', '/test/cors', { headers: { 'x-api-key': key } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), null);
    assert.equal((await app.request('GET', '/health')).status, 200);
  });
});

describe('CORS default: no browser origin allowed (SPEC 5.8)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  test('SPEC 5.8: with CORS_ORIGINS unset every Origin is 403 origin_denied; no Origin is served', async () => {
    const denied = await app.request('GET', '/health', { headers: { origin: PANEL } });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error.code, 'origin_denied');
    assert.equal((await preflight(app, '/health', PANEL)).status, 403);
    assert.equal((await app.request('GET', '/health')).status, 200);
  });

  test('SPEC 5.8: CORS_ORIGINS takes exact origins; anything else stops the start', () => {
    assert.deepEqual(loadConfig({}).CORS_ORIGINS, []);
    assert.deepEqual(loadConfig({ CORS_ORIGINS: ` ${PANEL} ,,${DEV}` }).CORS_ORIGINS, [PANEL, DEV]);
    for (const bad of [`${PANEL}/`, `${PANEL}/app`, 'panel.example.com', '*', 'HTTPS://PANEL.EXAMPLE.COM']) {
      assert.throws(() => loadConfig({ CORS_ORIGINS: bad }), ConfigError, bad);
    }
  });
});

describe("Issue 23 item 1.3: the gateway's own origin is always allowed (SPEC 5.8)", () => {
  const GATEWAY = 'https://gateway.example.com';
  let app: TestApp;
  let unset: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ BASE_URL: `${GATEWAY}/`, CORS_ORIGINS: PANEL });
    unset = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
    await unset?.close();
  });

  /** What the /docs page's "Test Request" sends: a same-origin POST, which browsers mark with Origin. */
  const login = (target: TestApp, origin: string) =>
    target.request('POST', '/admin/sessions', {
      headers: { origin },
      json: { email: 'nobody@example.com', password: 'not the password at all' },
    });

  test("BASE_URL's origin reaches the API, beside CORS_ORIGINS; other origins stay denied", async () => {
    const res = await login(app, GATEWAY);
    assert.equal(res.status, 401, res.text);
    assert.equal(res.body.error.code, 'invalid_credentials');
    assert.equal((await app.request('GET', '/health', { headers: { origin: PANEL } })).status, 200);
    for (const origin of [EVIL, 'http://gateway.example.com', `${GATEWAY}:8443`, app.baseUrl]) {
      const denied = await app.request('GET', '/health', { headers: { origin } });
      assert.equal(denied.status, 403, origin);
      assert.equal(denied.body.error.code, 'origin_denied', origin);
    }
  });

  test('without BASE_URL, the loopback origins of the port the page was served from are the own origin', async () => {
    const port = new URL(unset.baseUrl).port;
    for (const origin of [unset.baseUrl, `http://localhost:${port}`, `http://[::1]:${port}`]) {
      const res = await login(unset, origin);
      assert.equal(res.status, 401, `${origin}: ${res.text}`);
      assert.equal(res.body.error.code, 'invalid_credentials', origin);
    }
    // Another port on the same host is another origin; another host naming this port too.
    for (const origin of [
      `http://127.0.0.1:${Number(port) + 1}`,
      `https://127.0.0.1:${port}`,
      `http://evil.example.com:${port}`,
    ]) {
      const denied = await login(unset, origin);
      assert.equal(denied.status, 403, origin);
      assert.equal(denied.body.error.code, 'origin_denied', origin);
    }
  });
});
