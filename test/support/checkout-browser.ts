import assert from 'node:assert/strict';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { CHECKOUT_PAGE_CSP } from '../../src/checkout-page/render.ts';
import { launchChromium } from './browser.ts';

/**
 * What the checkout page's browser tests share (issue 25 item 4): one Chromium per test file, a page opened
 * at a width with its requests and console errors kept, axe-core, the page's text, and the same-origin check.
 * `baseUrl` is read when used, so the helpers can be made before the gateway starts.
 */

export interface Opened {
  page: Page;
  requests: string[];
  errors: string[];
}

/** axe-core on the page as it is: no serious or critical violation. */
export async function accessible(page: Page, what: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
    [],
    what,
  );
}

/** The page's visible text, no-break spaces as spaces (the currency format uses them). */
export const text = async (page: Page) => (await page.locator('body').innerText()).replace(/\u00a0/g, ' ');

export function checkoutBrowser(baseUrl: () => string) {
  let launched: Promise<Browser> | undefined;

  async function open(url: string, width: number): Promise<Opened> {
    launched ??= launchChromium();
    const browser = await launched;
    const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'pt-BR' });
    const page = await context.newPage();
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    const response = await page.goto(url, { waitUntil: 'load' });
    assert.equal(response?.status(), 200);
    assert.equal(await response?.headerValue('content-security-policy'), CHECKOUT_PAGE_CSP);
    return { page, requests, errors };
  }

  /** Everything the page loaded came from the gateway itself, and nothing broke the CSP. */
  function sameOriginOnly(opened: Opened): void {
    for (const r of opened.requests) assert.ok(r.startsWith(baseUrl()), `loaded from elsewhere: ${r}`);
    assert.deepEqual(
      opened.errors.filter((e) => /Content Security Policy|Refused/i.test(e)),
      [],
    );
  }

  async function close(): Promise<void> {
    if (launched) await (await launched).close();
  }

  return { open, sameOriginOnly, close };
}

/**
 * Runs `act` (a form's submit) and waits until the page it leads to is loaded: the form posts, the gateway
 * answers (303 back, or the page again) and the browser commits and loads the new document. Not
 * `waitForURL(checkout.url)`: the page is already at that URL, so it resolves before the post has even
 * been answered (a CI run read the old page that way).
 */
export async function submitted(page: Page, act: () => Promise<unknown>): Promise<void> {
  const committed = page.waitForEvent('framenavigated', { predicate: (f) => f === page.mainFrame() });
  await Promise.all([committed, act()]);
  await page.waitForLoadState('load');
}
