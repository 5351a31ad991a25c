import { randomBytes } from 'node:crypto';
import type { CheckoutMethod } from '../aggregates/checkout.ts';
import { CHECKOUT_METHODS } from '../aggregates/checkout.ts';
import { type CheckoutPageView, renderCheckoutPage } from './render.ts';

/**
 * Issue 25 "Performance": the payer page's HTML is a pure function of what it shows (the checkout's state, its
 * latest charge, the tenant's name: the view) and of the instant only through a few deadlines; only the
 * forms' nonces change on every load. So a page is rendered once per distinct view, with a marker where each
 * nonce goes, and kept as UTF-8 buffers between the markers; each load joins them with its own fresh nonces
 * (one buffer, written at once: no string re-encoded per load).
 *
 * Never stale: the key is the whole view, built by the route from reads of this request (the checkout's
 * stream, its charge's stream, the tenant's row), plus every comparison of the render with the instant
 * (whether the charge's Pix deadlines have passed); a different state, charge status, name or passed deadline
 * is another key. Pages with a refusal message or the payer's typed values are never kept. Bounded: a full
 * cache is emptied (a payer page is loaded by a handful of payers; the bound stops unbounded growth).
 */

const LIMIT = 512;
const cache = new Map<string, Template>();

/** The page split at its nonces: `parts[0]`, nonce of `methods[0]`, `parts[1]`, …, `parts[n]`. */
interface Template {
  parts: Buffer[];
  methods: CheckoutMethod[];
}

/**
 * Where each nonce goes: a marker with a random part drawn per render, so no text of the view (a merchant's
 * name, a description) can imitate it; escapeHtml leaves it as it is (letters, digits and `:`).
 */
function markers(): Record<CheckoutMethod, string> {
  const salt = randomBytes(12).toString('hex');
  return Object.fromEntries(CHECKOUT_METHODS.map((m) => [m, `nonce${salt}:${m}:`])) as Record<
    CheckoutMethod,
    string
  >;
}

function passed(iso: string | null | undefined, now: Date): boolean {
  return iso !== null && iso !== undefined && new Date(iso).getTime() <= now.getTime();
}

function keyOf(view: Omit<CheckoutPageView, 'nonces'>, now: Date): string {
  const c = view.charge;
  // The render compares the instant with these deadlines only (src/checkout-page/render.ts `passed`).
  const clock = c
    ? `${passed(c.expires_at, now) ? 1 : 0}${passed(c.boleto_pix_expires_at, now) ? 1 : 0}`
    : '';
  return `${clock}|${JSON.stringify(view)}`;
}

async function template(view: Omit<CheckoutPageView, 'nonces'>, now: Date): Promise<Template> {
  const marks = markers();
  const html = await renderCheckoutPage({ ...view, nonces: marks }, { now });
  const found = CHECKOUT_METHODS.flatMap((m) => {
    const at: { at: number; method: CheckoutMethod }[] = [];
    for (let i = html.indexOf(marks[m]); i !== -1; i = html.indexOf(marks[m], i + 1))
      at.push({ at: i, method: m });
    return at;
  }).sort((a, b) => a.at - b.at);
  const parts: Buffer[] = [];
  let from = 0;
  for (const f of found) {
    parts.push(Buffer.from(html.slice(from, f.at), 'utf8'));
    from = f.at + marks[f.method].length;
  }
  parts.push(Buffer.from(html.slice(from), 'utf8'));
  return { parts, methods: found.map((f) => f.method) };
}

/**
 * The page of `view` with `nonces`, as renderCheckoutPage renders it, in UTF-8. A refused post's page (with
 * `error` or `values`) is rendered as it comes, never kept.
 */
export async function checkoutPageBytes(view: CheckoutPageView, now: Date): Promise<Buffer> {
  const { nonces, ...shown } = view;
  if (view.error !== undefined || view.values !== undefined) {
    return Buffer.from(await renderCheckoutPage(view, { now }), 'utf8');
  }
  const key = keyOf(shown, now);
  let t = cache.get(key);
  if (!t) {
    t = await template(shown, now);
    if (cache.size >= LIMIT) cache.clear();
    cache.set(key, t);
  }
  const chunks: Buffer[] = [t.parts[0] as Buffer];
  t.methods.forEach((m, i) => {
    chunks.push(Buffer.from(nonces[m], 'latin1'), t.parts[i + 1] as Buffer);
  });
  return Buffer.concat(chunks);
}
