import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { ARTIFACTS, launchChromium } from '../support/browser.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

/**
 * The reference page at /docs (issue 15 item 2) as a reader's browser shows it: headless Chromium opens the
 * page served by the gateway, every operation of /openapi.json and both webhooks are on it, nothing is
 * loaded from outside the gateway (no CDN, no web fonts, no telemetry) and the console stays clean. The
 * screenshot goes to test-artifacts/docs-page.png. Chromium is required: a missing browser fails here.
 */

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

type Operation = { operationId?: string; summary?: string };
type Document = {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Record<string, Operation>>;
};

let app: TestApp;
let browser: Browser | undefined;

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  app = await startTestApp();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('/docs in headless Chromium (issue 15 item 2)', () => {
  test('every operation and both webhooks, served from the gateway alone, no console errors', async () => {
    const doc = (await app.request('GET', '/openapi.json')).body as Document;
    const expected = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const operation = item[method];
        if (operation) expected.add(operation.summary ?? path);
      }
    }
    const webhooks = Object.entries(doc.webhooks).map(([name, item]) => ({
      name,
      summary: item.post?.summary ?? name,
    }));
    assert.deepEqual(webhooks.map((w) => w.name).sort(), ['transaction.created', 'transaction.updated']);
    for (const { summary } of webhooks) expected.add(summary);
    assert.ok(expected.size > 50, `the document lists ${expected.size} operations`);

    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    // Chromium's console names no URL for a failed load; this does.
    page.on('response', (r) => {
      if (r.status() >= 400) errors.push(`${r.status()} ${r.url()}`);
    });

    const response = await page.goto(`${app.baseUrl}/docs`, { waitUntil: 'load' });
    assert.equal(response?.status(), 200);
    assert.match((await response?.headerValue('content-security-policy')) ?? '', /default-src 'none'/);
    // Rendered when every expected text is on the page; the assertion below names whatever is missing.
    const wanted = [...expected];
    await page
      .waitForFunction((texts) => texts.every((t) => document.body.innerText.includes(t)), wanted, {
        timeout: 15_000,
      })
      .catch(() => undefined);
    // Saved before the assertions: on a failure it shows what the reader would have seen.
    await page.screenshot({ path: `${ARTIFACTS}/docs-page.png`, fullPage: true });
    const text = await page.locator('body').innerText();
    assert.deepEqual(
      wanted.filter((t) => !text.includes(t)),
      [],
      'every operation and webhook is on the page',
    );
    assert.ok(!text.includes('Ask AI'), 'no control that sends the document to a third party');
    // Sections below the fold render when reached: open each webhook from the sidebar, then its name and
    // its example body (the event type in quotes) are on the page.
    for (const { name, summary } of webhooks) {
      await page.getByText(summary, { exact: true }).first().click();
      await page.getByText(name, { exact: true }).first().waitFor({ timeout: 15_000 });
      await page.getByText(`"${name}"`).first().waitFor({ timeout: 15_000 });
    }
    await page.screenshot({ path: `${ARTIFACTS}/docs-page-webhook.png` });
    const origin = new URL(app.baseUrl).origin;
    assert.deepEqual(
      requests.filter((url) => new URL(url).origin !== origin),
      [],
      'every request goes to the gateway itself',
    );
    assert.ok(
      requests.some((url) => url.endsWith('/docs/js/scalar.js')),
      'the bundle comes from the gateway',
    );
    assert.deepEqual(errors, []);
    // Issue 23 item 1.3: what the "Test Request" button does, a same-origin POST from the page (Chromium
    // sends its Origin), reaches the API: 401 invalid_credentials, not 403 origin_denied. Checked after the
    // console, where Chromium logs that expected 401 as a failed load.
    const tried = await page.evaluate(async () => {
      const res = await fetch('/admin/sessions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'nobody@example.com', password: 'not the password at all' }),
      });
      return { status: res.status, body: await res.json() };
    });
    assert.equal(tried.status, 401, JSON.stringify(tried.body));
    assert.equal(tried.body.error.code, 'invalid_credentials');
    await context.close();
  });
});
