import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import jsqr from 'jsqr';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, test } from 'vitest';
import {
  CHARGE_PAGE_CSP,
  type ChargePageView,
  NOT_FOUND_TEXT,
  renderChargePage,
  SIMULATED_BANNER,
} from '../../src/charge-page/render.ts';
import { ARTIFACTS, launchChromium } from '../support/browser.ts';
import { chargeView, PIX, SIM_MARKER, simulatedPixView } from '../support/charge-page-views.ts';
import { pixBody } from '../support/charges.ts';
import { seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp } from '../support/http.ts';

/**
 * The charge page (SPEC 1 simulator table, 2.2, 3.1) as a payer's browser shows it: headless Chromium opens
 * the rendered HTML served from 127.0.0.1 with the page's Content-Security-Policy, and (c) the page served by
 * the gateway itself (GET /cobranca/{id}/{signature}, on a PostgreSQL test database); screenshots go to
 * test-artifacts/charge-page-*.png. Chromium is required: a missing browser fails here, it does not skip.
 */

// jsqr is CommonJS with an `exports.default`; its types describe the ES module view.
const jsQR = jsqr.default;

const NOW = new Date('2026-11-21T12:00:00Z');

const description = 'Camiseta azul <tamanho M>';
const MERCHANT = 'Loja da Ana <Centro> & Cia';
const pages: Record<string, ChargePageView> = {
  simulated: simulatedPixView({ description }),
  real: chargeView({ description }),
};

let server: Server;
let origin: string;
let launched: Promise<Browser> | undefined;

/**
 * Chromium, launched once. Asked for inside each test (not in beforeAll): a missing browser then fails every
 * test with the instruction, where a failing hook would leave them reported as skipped.
 */
function chromiumBrowser(): Promise<Browser> {
  launched ??= launchChromium();
  return launched;
}

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  const html = Object.fromEntries(
    await Promise.all(
      Object.entries(pages).map(
        async ([name, v]) => [name, await renderChargePage(v, { now: NOW })] as const,
      ),
    ),
  );
  server = createServer((req, res) => {
    const body = html[(req.url ?? '').slice(1)];
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CHARGE_PAGE_CSP,
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  if (launched) await (await launched).close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

/**
 * Opens one page (a name served by this file's server, or a full URL); collects every request (to prove
 * nothing outside is loaded) and console errors (CSP).
 */
async function open(
  target: string,
  expectedStatus = 200,
): Promise<{
  page: Page;
  requests: string[];
  errors: string[];
  text: string;
  csp: string | null | undefined;
}> {
  const browser = await chromiumBrowser();
  const context = await browser.newContext({ viewport: { width: 430, height: 900 }, locale: 'pt-BR' });
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  const url = target.startsWith('http') ? target : `${origin}/${target}`;
  const response = await page.goto(url, { waitUntil: 'load' });
  assert.equal(response?.status(), expectedStatus);
  const text = (await page.locator('body').innerText()).replace(/\u00a0/g, ' ');
  return { page, requests, errors, text, csp: await response?.headerValue('content-security-policy') };
}

/** Draws the page's QR SVG on a canvas and decodes the pixels with jsQR: what a phone camera would read. */
async function decodeQr(page: Page): Promise<string | undefined> {
  const size = 400;
  const pixels = await page.locator('.qr svg').evaluate(async (svg, px) => {
    const img = new Image();
    img.src = `data:image/svg+xml;base64,${btoa(new XMLSerializer().serializeToString(svg))}`;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = px;
    canvas.height = px;
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('no 2d canvas');
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, px, px);
    ctx.drawImage(img, 0, 0, px, px);
    return Array.from(ctx.getImageData(0, 0, px, px).data);
  }, size);
  return jsQR(Uint8ClampedArray.from(pixels), size, size)?.data;
}

describe('charge page in headless Chromium (SPEC 1, 2.2, 3.1)', () => {
  test('(a) simulated pending Pix: banner, amount, status, no QR code, marker not shown', async () => {
    const { page, requests, errors, text } = await open('simulated');
    try {
      assert.ok(text.includes(SIMULATED_BANNER), text);
      assert.ok(text.includes('R$ 12,50'), text);
      assert.ok(text.includes('Aguardando pagamento'), text);
      assert.ok(text.includes('Camiseta azul <tamanho M>'), 'escaped text reads as typed');
      assert.ok(!text.includes(SIM_MARKER));
      assert.ok(await page.locator('.banner').isVisible());
      assert.equal(await page.locator('svg').count(), 0, 'no QR code');
      assert.equal(await page.locator('canvas, img').count(), 0);
      assert.deepEqual(requests, [`${origin}/simulated`], 'nothing else is loaded');
      assert.deepEqual(errors, []);
      await page.screenshot({ path: `${ARTIFACTS}/charge-page-simulated.png`, fullPage: true });
    } finally {
      await page.context().close();
    }
  });

  test('(b) real pending Pix: amount, status, a visible QR that decodes to the copy-paste text', async () => {
    const { page, requests, errors, text } = await open('real');
    try {
      assert.ok(text.includes('R$ 12,50'), text);
      assert.ok(text.includes('Aguardando pagamento'), text);
      assert.ok(text.includes('Pague com Pix'), text);
      assert.ok(!text.includes('SIMULADO'));
      const qr = page.locator('.qr svg');
      assert.equal(await qr.count(), 1);
      const box = await qr.boundingBox();
      assert.ok(
        box && box.width >= 200 && box.height >= 200,
        `QR large enough to scan: ${JSON.stringify(box)}`,
      );
      assert.equal(await page.locator('textarea#pix').inputValue(), PIX);
      assert.equal(await decodeQr(page), PIX, 'the QR decodes to exactly pix_copy_paste');
      await page.screenshot({ path: `${ARTIFACTS}/charge-page-real-pix.png`, fullPage: true });
      // The copy button's inline script runs under the page's CSP (allowed by its hash).
      await page.getByRole('button', { name: 'Copiar código Pix' }).click();
      assert.equal(await page.locator('button[data-copy="pix"]').innerText(), 'Copiado!');
      assert.deepEqual(requests, [`${origin}/real`], 'nothing else is loaded');
      assert.deepEqual(
        errors.filter((e) => /Content Security Policy|Refused/i.test(e)),
        [],
      );
    } finally {
      await page.context().close();
    }
  });

  test('(c) served by the gateway: a simulated Pix created over HTTP, opened from its document_url', async () => {
    const app = await startTestApp({
      DOCUMENT_SIGNING_SECRET: 'charge-page-browser-document-signing-secret-0123',
      ENABLE_SIMULATOR: 'true',
    });
    try {
      const { key } = await seedTenantAndKey(app.gateway.ctx, { livemode: false, tenantName: MERCHANT });
      const created = await app.request('POST', '/v1/pix', {
        headers: { 'x-api-key': key, 'idempotency-key': 'browser-page-1' },
        json: pixBody({ description }),
      });
      assert.equal(created.status, 201, created.text);
      // BASE_URL is not the test server's address; the signed part is the path.
      const url = app.baseUrl + new URL(created.body.data.document_url).pathname;
      const { page, requests, errors, text, csp } = await open(url);
      try {
        assert.equal(csp, CHARGE_PAGE_CSP);
        const banner = page.locator('.banner');
        assert.ok(await banner.isVisible());
        assert.equal(await banner.innerText(), SIMULATED_BANNER);
        assert.ok(text.includes('R$ 12,50'), text);
        assert.ok(text.includes('Aguardando pagamento'), text);
        assert.ok(text.includes('Camiseta azul <tamanho M>'), 'escaped text reads as typed');
        // Issue 12 item 5 (6): the payer sees who is charging, as typed (escaped markup reads as text).
        assert.ok(await page.getByRole('heading', { name: `Cobrança de ${MERCHANT}` }).isVisible(), text);
        assert.ok(await page.locator('.merchant').isVisible());
        assert.equal(await page.locator('.merchant').innerText(), MERCHANT);
        assert.equal(await page.locator('svg, canvas, img').count(), 0, 'no QR code');
        assert.deepEqual(requests, [url], 'nothing else is loaded');
        assert.deepEqual(errors, []);
        await page.screenshot({ path: `${ARTIFACTS}/charge-page-served.png`, fullPage: true });
      } finally {
        await page.context().close();
      }

      // A tampered link: the payer's browser shows the Portuguese 404 page, not JSON.
      const wrong = `${url.slice(0, -4)}AAAA`;
      const missing = await open(wrong, 404);
      try {
        assert.equal(await missing.page.locator('html').getAttribute('lang'), 'pt-BR');
        assert.ok(await missing.page.getByRole('heading', { name: 'Cobrança não encontrada' }).isVisible());
        assert.ok(missing.text.includes(NOT_FOUND_TEXT), missing.text);
        assert.ok(!missing.text.includes('not_found') && !missing.text.includes('{'), 'no JSON');
        assert.deepEqual(missing.requests, [wrong], 'nothing else is loaded');
        // Chromium reports the 404 of the document itself on the console; nothing else may be there.
        assert.deepEqual(
          missing.errors.filter((e) => !/status of 404/.test(e)),
          [],
        );
        await missing.page.screenshot({ path: `${ARTIFACTS}/charge-page-not-found.png`, fullPage: true });
      } finally {
        await missing.page.context().close();
      }
    } finally {
      await app.close();
    }
  });
});
