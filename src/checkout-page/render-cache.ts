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

/** A marker no escaped text can contain (escapeHtml leaves control characters; views never carry them). */
const marker = (m: CheckoutMethod) => `\u0001nonce:${m}\u0001`;
const MARKERS = Object.fromEntries(CHECKOUT_METHODS.map((m) => [m, marker(m)])) as Record<
  CheckoutMethod,
  string
>;
const SPLIT = /\u0001nonce:([a-z_]+)\u0001/;

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
  const html = await renderCheckoutPage({ ...view, nonces: MARKERS }, { now });
  const pieces = html.split(SPLIT);
  const parts: Buffer[] = [];
  const methods: CheckoutMethod[] = [];
  pieces.forEach((piece, i) => {
    if (i % 2 === 0) parts.push(Buffer.from(piece, 'utf8'));
    else methods.push(piece as CheckoutMethod);
  });
  return { parts, methods };
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
