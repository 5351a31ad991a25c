import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { COLLECTION_FILE } from '../../scripts/collection.ts';
import { SCOPES } from '../../src/aggregates/access.ts';
import { issueApiKey } from '../../src/commands/api-keys/issue/handler.ts';
import { commandDeps, type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

/**
 * Issue 23 item 1.9: the Postman collection's examples failed as sent (`422 invalid_cost_center` from an
 * invented cost_center_id, a fixed due date that had passed). Here its public requests (API key or no
 * auth) run in the collection's order, as Postman's runner sends them, against a served gateway with a
 * test key: the collection's pre-request script and each request's test script run on a small stand-in
 * for Postman's `pm` (collection variables, the response), `{{variables}}` are substituted, and every
 * answer is 2xx but the one the reference documents for a test key (no PDF for a simulated boleto).
 * newman would do the same with some hundred dependencies more.
 */

interface Script {
  listen: string;
  script: { exec: string[] };
}
interface Item {
  name: string;
  item?: Item[];
  event?: Script[];
  request: {
    method: string;
    url: {
      path: string[];
      query?: { key: string; value: string; disabled?: boolean }[];
      variable?: { key: string; value: string }[];
    };
    header?: { key: string; value: string; disabled?: boolean }[];
    auth?: { type: string; apikey?: { key: string; value: string }[] } | null;
    body?: { raw?: string };
  };
}
interface Collection {
  item: Item[];
  event: Script[];
  variable: { key: string; value: string }[];
}

/** What a test key cannot get, as the reference says: the simulator issues no boleto, so no PDF (404). */
const DOCUMENTED: Record<string, number> = { 'GET /cobranca/:id/:signature/boleto.pdf': 404 };

let app: TestApp;
let key: SeededKey;
/** SPEC 4.13: subtenants are registered with a production key; the same tenant's live key sends them. */
let liveKey: string;
beforeAll(async () => {
  // Card charges seal their token with the credentials key (issue 25).
  app = await startTestApp({
    ENABLE_SIMULATOR: 'true',
    CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });
  key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
  const live = await issueApiKey(
    commandDeps(app.gateway.ctx),
    {
      tenantId: key.tenantId,
      livemode: true,
      name: 'live key',
      scopes: SCOPES,
      accessProfile: 'standard',
      createdBy: 'system:test',
    },
    { actor: 'system:test', request_id: 'req_test' },
  );
  liveKey = live.key;
});
afterAll(() => app.close());

describe('issue 23 item 1.9: the Postman collection runs as sent', () => {
  test('its public requests, in order, from an empty tenant: each 2xx or the status documented for a test key', async () => {
    const collection = JSON.parse(readFileSync(COLLECTION_FILE, 'utf8')) as Collection;
    const vars = new Map(collection.variable.map((v) => [v.key, v.value]));
    vars.set('baseUrl', app.baseUrl);
    vars.set('apiKey', key.key);
    let response: { code: number; body: unknown } = { code: 0, body: undefined };
    const pm = {
      collectionVariables: {
        get: (k: string) => vars.get(k),
        set: (k: string, v: unknown) => vars.set(k, String(v)),
      },
      response: {
        get code() {
          return response.code;
        },
        json: () => response.body,
      },
    };
    const run = (scripts: Script[] | undefined, listen: string) => {
      for (const s of scripts ?? []) {
        if (s.listen === listen) new Function('pm', s.script.exec.join('\n'))(pm);
      }
    };
    const fill = (text: string, where: string) =>
      text.replace(/\{\{([^}]+)\}\}/g, (_, name: string) => {
        if (name === '$guid') return randomUUID();
        const value = vars.get(name);
        assert.ok(value, `${where}: {{${name}}} is not set by any request before it`);
        return value;
      });

    const sent: string[] = [];
    for (const folder of collection.item) {
      for (const item of folder.item ?? []) {
        const r = item.request;
        const route = `${r.method} /${r.url.path.join('/')}`;
        // The panel's requests need a session and a super_admin; the public ones a key (or nothing).
        if (r.auth?.type === 'bearer' || folder.name.startsWith('Panel') || folder.name === 'Webhooks')
          continue;
        run(collection.event, 'prerequest');
        const params = new Map((r.url.variable ?? []).map((v) => [v.key, fill(v.value, route)]));
        const path = r.url.path
          .map((p) => (p.startsWith(':') ? encodeURIComponent(params.get(p.slice(1)) ?? '') : p))
          .join('/');
        const query = (r.url.query ?? [])
          .filter((q) => !q.disabled)
          .map((q) => `${q.key}=${encodeURIComponent(fill(q.value, route))}`)
          .join('&');
        const headers: Record<string, string> = {};
        for (const h of r.header ?? []) if (!h.disabled) headers[h.key] = fill(h.value, route);
        if (r.auth?.type === 'apikey') headers['X-API-Key'] = fill('{{apiKey}}', route);
        if (folder.name === 'Subtenants') headers['X-API-Key'] = liveKey;
        const raw = r.body?.raw ? fill(r.body.raw, route) : undefined;
        const res = await app.request(r.method, `/${path}${query ? `?${query}` : ''}`, { headers, raw });
        response = { code: res.status, body: res.body };
        const expected = DOCUMENTED[route];
        if (expected)
          assert.equal(res.status, expected, `${item.name} (${route}): ${res.text.slice(0, 300)}`);
        else
          assert.ok(
            res.status < 300,
            `${item.name} (${route}) answered ${res.status}: ${res.text.slice(0, 300)}`,
          );
        run(item.event, 'test');
        sent.push(route);
      }
    }
    // The public flow of the reference, all of it: charges, their reads and actions, checkouts, subscriptions,
    // cost centers, subtenants, pages.
    assert.deepEqual(sent, [
      'POST /v1/pix',
      'POST /v1/boleto',
      'POST /v1/credit-card',
      'GET /v1/transactions/:id',
      'GET /v1/transactions/:id/request',
      'POST /v1/transactions/:id/simulate',
      'POST /v1/transactions/:id/refresh',
      'POST /v1/transactions/:id/refund',
      'PATCH /v1/transactions/:id/boleto',
      'GET /v1/transactions',
      'POST /v1/checkouts',
      'GET /v1/checkouts',
      'GET /v1/checkouts/:id',
      'POST /v1/subscriptions',
      'GET /v1/subscriptions',
      'GET /v1/subscriptions/:id',
      'PATCH /v1/subscriptions/:id',
      'GET /v1/subscriptions/:id/cycles',
      'POST /v1/test_clocks',
      'GET /v1/test_clocks',
      'POST /v1/test_clocks/:id/advance',
      'GET /v1/test_clocks/:id',
      'DELETE /v1/test_clocks/:id',
      'POST /v1/pix-automatic/authorizations',
      'GET /v1/pix-automatic/authorizations',
      'POST /v1/pix-automatic/authorizations/:id/simulate',
      'POST /v1/pix-automatic/authorizations/:id/refresh',
      'POST /v1/pix-automatic/charges',
      'GET /v1/pix-automatic/authorizations/:id',
      'DELETE /v1/pix-automatic/authorizations/:id',
      'GET /v1/cost-centers',
      'POST /v1/cost-centers',
      'GET /v1/cost-centers/:id',
      'PATCH /v1/cost-centers/:id',
      'POST /v1/subtenants',
      'GET /v1/subtenants',
      'POST /v1/subtenants/:id/api-keys',
      'GET /cobranca/:id/:signature',
      'GET /cobranca/:id/:signature/boleto.pdf',
      'GET /checkout/:id/:signature',
      'GET /health',
      'GET /ready',
    ]);
    // The boleto's due date moved to the collection's later date, a São Paulo day ahead of today.
    const boleto = await app.request('GET', `/v1/transactions/${vars.get('boletoId')}`, {
      headers: { 'x-api-key': key.key },
    });
    assert.equal(boleto.body.data.boleto_due_date, vars.get('newDueDate'));
    assert.ok((vars.get('newDueDate') ?? '') > new Date().toISOString().slice(0, 10));
  }, 120_000);
});
