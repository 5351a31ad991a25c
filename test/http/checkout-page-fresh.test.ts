import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { pixBody } from '../support/charges.ts';
import { type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

/**
 * Issue 25 "Performance" (SPEC 2.7, 4.9): the payer page reads the checkout's stream and the tenant's name in
 * one statement (src/commands/checkouts/page-read.ts) and keeps its render per view (src/checkout-page/render-cache.ts).
 * Neither may show anything stale or reuse a nonce: the tenant's current name shows on the next load, each
 * load has fresh nonces, a choice shows at once, and the answer is the page in UTF-8 with its length.
 */

let app: TestApp;
let ana: SeededKey;

beforeAll(async () => {
  app = await startTestApp({
    ENABLE_SIMULATOR: 'true',
    CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });
  ana = await seedTenantAndKey(app.gateway.ctx, { tenantName: 'Loja da Ana' });
  await app.settle();
});

afterAll(async () => {
  await app.close();
});

async function openCheckout(): Promise<string> {
  const res = await app.request('POST', '/v1/checkouts', {
    headers: { 'x-api-key': ana.key, 'idempotency-key': randomUUID() },
    json: {
      methods: ['pix', 'boleto'],
      amount: 15990,
      reference: 'pedido-fresh',
      description: 'Pedido fresco',
      customer: pixBody().customer,
    },
  });
  assert.equal(res.status, 201, res.text);
  return new URL(res.body.data.url).pathname;
}

const nonces = (html: string) => [...html.matchAll(/name="nonce" value="([^"]+)"/g)].map((m) => m[1]);
const withoutNonces = (html: string) => html.replace(/name="nonce" value="[^"]+"/g, 'name="nonce"');

describe('checkout payer page: one read, cached render, never stale (issue 25 Performance)', () => {
  test('each load has its own nonces; the rest of the page is the same; length and type as before', async () => {
    const path = await openCheckout();
    const a = await app.request('GET', path);
    const b = await app.request('GET', path);
    assert.equal(a.status, 200, a.text);
    assert.equal(b.status, 200);
    assert.equal(a.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(Number(a.headers.get('content-length')), Buffer.byteLength(a.text, 'utf8'));
    const [na, nb] = [nonces(a.text), nonces(b.text)];
    assert.equal(na.length, 2);
    assert.equal(new Set([...na, ...nb]).size, 4, 'no nonce is ever served twice');
    for (const n of [...na, ...nb]) assert.match(n ?? '', /^[A-Za-z0-9_-]{22}$/);
    assert.equal(withoutNonces(a.text), withoutNonces(b.text));
    assert.ok(a.text.includes('Loja da Ana') && a.text.includes('159,90'));
  });

  test("the tenant's current name shows on the next load (its read model row, read with the stream)", async () => {
    const path = await openCheckout();
    assert.ok(
      (await app.request('GET', path)).text.includes(
        'Pagamento para <span class="merchant">Loja da Ana</span>',
      ),
    );
    const db = app.gateway.ctx.db;
    await db.updateTable('tenants').set({ name: 'Ana & Filhos' }).where('id', '=', ana.tenantId).execute();
    try {
      const renamed = await app.request('GET', path);
      assert.ok(
        renamed.text.includes('Pagamento para <span class="merchant">Ana &#38; Filhos</span>'),
        renamed.text,
      );
      assert.ok(!renamed.text.includes('Loja da Ana'));
    } finally {
      await db.updateTable('tenants').set({ name: 'Loja da Ana' }).where('id', '=', ana.tenantId).execute();
    }
    assert.ok((await app.request('GET', path)).text.includes('Loja da Ana'));
  });

  test('a choice shows at once on the next load (a new stream version is a new page)', async () => {
    const path = await openCheckout();
    const before = await app.request('GET', path);
    assert.ok(before.text.includes('Como você quer pagar?'));
    const nonce = nonces(before.text)[0] ?? '';
    const chosen = await fetch(`${app.baseUrl}${path}/pay`, {
      method: 'POST',
      body: new URLSearchParams({ method: 'pix', nonce }),
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: app.baseUrl },
    });
    assert.equal(chosen.status, 303, await chosen.text());
    const after = await app.request('GET', path);
    assert.ok(after.text.includes('SIMULADO — não pagável'));
    assert.ok(after.text.includes('Pagar de outra forma'));
    assert.ok(!after.text.includes('Como você quer pagar?'));
  });

  test('a wrong signature and an unknown id are still the same 404 page', async () => {
    const path = await openCheckout();
    const wrong = await app.request('GET', `${path.slice(0, -1)}${path.endsWith('A') ? 'B' : 'A'}`);
    assert.equal(wrong.status, 404);
    const unknown = await app.request('GET', path.replace(/chk_[a-z0-9]+/, 'chk_unknown'));
    assert.equal(unknown.status, 404);
    assert.equal(wrong.text, unknown.text);
  });
});
