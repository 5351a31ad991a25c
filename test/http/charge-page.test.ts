import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { saoPauloDate } from '../../src/aggregates/transaction.ts';
import {
  CHARGE_PAGE_CSP,
  formatBRL,
  NOT_FOUND_TEXT,
  SIMULATED_BANNER,
  STATUS_LABEL,
} from '../../src/charge-page/render.ts';
import { documentUrl } from '../../src/charge-page/signature.ts';
import { newId } from '../../src/ids.ts';
import { pixBody } from '../support/charges.ts';
import { type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp, type TestResponse } from '../support/http.ts';

/**
 * SPEC 2.2 `document_url` / `boleto_url`, SPEC 1 simulator row, SPEC 7 (issue 5 item 8): the charge page
 * served by the gateway over a real socket, on a real PostgreSQL database.
 */

const SECRET = 'charge-page-test-document-signing-secret-0123456789';
let app: TestApp;
let key: SeededKey;
let counter = 0;

async function create(path: '/v1/pix' | '/v1/boleto', json: unknown) {
  const res = await app.request('POST', path, {
    headers: { 'x-api-key': key.key, 'idempotency-key': `page-${++counter}` },
    json,
  });
  assert.equal(res.status, 201, res.text);
  return res.body.data as { id: string; document_url: string; boleto_url: string | null };
}

/** The document_url's path: BASE_URL is not the test server's address, the path is what is signed. */
const pathOf = (url: string) => new URL(url).pathname;

function boletoBody() {
  const due = new Date(`${saoPauloDate(new Date())}T00:00:00Z`);
  due.setUTCDate(due.getUTCDate() + 5);
  return pixBody({ amount: 9990, boleto: { due_date: due.toISOString().slice(0, 10) } });
}

/**
 * Issue 12 item 5 (6): a payer's wrong link is a Portuguese HTML page, 404, with X-Request-ID and the
 * capability headers; the same page for every cause.
 */
function assertNotFoundPage(res: TestResponse): void {
  assert.equal(res.status, 404, res.text);
  assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.match(res.headers.get('x-request-id') ?? '', /^req_/);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
  assert.equal(res.headers.get('content-security-policy'), CHARGE_PAGE_CSP);
  assert.equal(res.body, undefined, 'not JSON');
  assert.ok(res.text.startsWith('<!doctype html>\n<html lang="pt-BR">'), res.text);
  assert.ok(res.text.includes('<h1>Cobrança não encontrada</h1>'));
  assert.ok(res.text.includes(NOT_FOUND_TEXT));
}

/** Flips one character of the signature (the last path segment) to another of the base64url alphabet. */
function tamper(path: string): string {
  const i = path.length - 5;
  const c = path[i] === 'A' ? 'B' : 'A';
  return path.slice(0, i) + c + path.slice(i + 1);
}

beforeAll(async () => {
  app = await startTestApp({ DOCUMENT_SIGNING_SECRET: SECRET, ENABLE_SIMULATOR: 'true' });
  key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
});
afterAll(() => app.close());

describe('GET /cobranca/{id}/{signature} (SPEC 2.2 document_url)', () => {
  test('a simulated test Pix: 200 HTML, strict headers, amount, status, banner, no QR, no marker', async () => {
    const t = await create('/v1/pix', pixBody({ amount: 1250 }));
    const res = await app.request('GET', pathOf(t.document_url));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(res.headers.get('content-security-policy'), CHARGE_PAGE_CSP);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.equal(res.body, undefined, 'not JSON');
    assert.ok(res.text.startsWith('<!doctype html>'));
    assert.equal(formatBRL(1250), 'R$\u00a012,50');
    assert.ok(res.text.includes('R$\u00a012,50'), 'the amount in reais');
    assert.ok(res.text.includes(SIMULATED_BANNER));
    assert.ok(res.text.includes(STATUS_LABEL.pending));
    assert.ok(res.text.includes(t.id));
    assert.ok(!res.text.includes('<svg'), 'no QR code');
    assert.ok(!res.text.includes('SIMULATED-PIX'), 'the simulator marker is not printed');
    assert.ok(!res.text.includes('<textarea'), 'nothing to copy');
  });

  test('wrong links are one Portuguese 404 page: tampered, foreign, truncated, unknown id, garbage', async () => {
    const a = await create('/v1/pix', pixBody());
    const b = await create('/v1/pix', pixBody());
    const pathA = pathOf(a.document_url);
    const sigB = pathOf(b.document_url).split('/').at(-1) ?? '';
    const unknownId = newId('txn');
    const attempts = [
      tamper(pathA),
      `/cobranca/${a.id}/${sigB}`,
      pathA.slice(0, -1),
      `${pathA}x`,
      pathOf(documentUrl('http://x', SECRET, unknownId)),
      pathOf(documentUrl('http://x', 'another-secret-of-at-least-32-characters!!', a.id)),
      `/cobranca/${a.id}/${'%20'.repeat(3)}`,
      `/cobranca/${unknownId}/not-a-signature`,
    ];
    for (const path of attempts) assertNotFoundPage(await app.request('GET', path));
    // The right link still works.
    assert.equal((await app.request('GET', pathA)).status, 200);
  });

  test('the page names who is charging: the tenant name, escaped', async () => {
    const shop = await seedTenantAndKey(app.gateway.ctx, {
      livemode: false,
      tenantName: 'Loja <Ana> & "Filhos"',
    });
    const res = await app.request('POST', '/v1/pix', {
      headers: { 'x-api-key': shop.key, 'idempotency-key': 'page-shop-1' },
      json: pixBody(),
    });
    assert.equal(res.status, 201, res.text);
    const page = await app.request('GET', pathOf(res.body.data.document_url));
    assert.equal(page.status, 200, page.text);
    const escaped = 'Loja &#60;Ana&#62; &#38; &#34;Filhos&#34;';
    assert.ok(page.text.includes(`<h1>Cobrança de <span class="merchant">${escaped}</span></h1>`), page.text);
    assert.ok(page.text.includes(`<title>Cobrança R$\u00a012,50 de ${escaped} — `));
    assert.ok(!page.text.includes('<Ana>'));
  });

  test('the description is escaped, never markup', async () => {
    const description = '<script>alert("x")</script> & <b>';
    const t = await create('/v1/pix', pixBody({ description }));
    const res = await app.request('GET', pathOf(t.document_url));
    assert.equal(res.status, 200, res.text);
    assert.ok(!res.text.includes('<script>alert'), 'no injected script');
    assert.ok(!res.text.includes('<b>'), 'no injected tag');
    assert.ok(
      res.text.includes('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#60;b&#62;'),
      'shown as text',
    );
    // The page's own script is the copy button's only.
    assert.equal(res.text.match(/<script>/g)?.length, 1);
  });

  test('the page follows the current state: after simulate paid it shows Pago', async () => {
    const t = await create('/v1/pix', pixBody());
    const sim = await app.request('POST', `/v1/transactions/${t.id}/simulate`, {
      headers: { 'x-api-key': key.key },
      json: { status: 'paid' },
    });
    assert.equal(sim.status, 200, sim.text);
    const res = await app.request('GET', pathOf(t.document_url));
    assert.equal(res.status, 200, res.text);
    assert.ok(res.text.includes(`status-paid">${STATUS_LABEL.paid}<`), 'the paid label');
    assert.ok(!res.text.includes(STATUS_LABEL.pending));
    assert.ok(res.text.includes('Pagamento simulado: nenhum dinheiro foi movimentado.'));
    assert.ok(res.text.includes(SIMULATED_BANNER));
  });

  test('a simulated boleto: its page renders, no PDF link (boleto_url null)', async () => {
    const t = await create('/v1/boleto', boletoBody());
    assert.equal(t.boleto_url, null);
    const res = await app.request('GET', pathOf(t.document_url));
    assert.equal(res.status, 200, res.text);
    assert.ok(res.text.includes('R$\u00a099,90'));
    assert.ok(res.text.includes(SIMULATED_BANNER));
    assert.ok(res.text.includes('Vencimento'));
    assert.ok(!res.text.includes('boleto.pdf'));
  });
});

describe('GET /cobranca/{id}/{signature}/boleto.pdf (SPEC 2.2 boleto_url)', () => {
  // The PDF of a provider boleto: test/http/boleto-pdf.test.ts.
  test('no PDF exists for a simulated boleto nor a Pix: the 404 page, as for a wrong signature', async () => {
    const t = await create('/v1/boleto', boletoBody());
    assertNotFoundPage(await app.request('GET', `${pathOf(t.document_url)}/boleto.pdf`));
    assertNotFoundPage(await app.request('GET', `${tamper(pathOf(t.document_url))}/boleto.pdf`));
    const pix = await create('/v1/pix', pixBody());
    assertNotFoundPage(await app.request('GET', `${pathOf(pix.document_url)}/boleto.pdf`));
  });
});

describe('the charge page in /openapi.json', () => {
  test('documented as public HTML', async () => {
    const doc = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security?: unknown; responses: Record<string, unknown> }>>;
    };
    const page = doc.paths['/cobranca/{id}/{signature}']?.get;
    assert.ok(page);
    assert.deepEqual(page.security, [], 'no credential');
    assert.ok(JSON.stringify(page.responses['200']).includes('text/html'));
    assert.ok(page.responses['404']);
    assert.ok(doc.paths['/cobranca/{id}/{signature}/boleto.pdf']?.get?.responses['404']);
  });
});
