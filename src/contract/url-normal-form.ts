import { z } from 'zod';

/**
 * Issue 23 item 2.9: a destination URL typed by an integrator (a webhook endpoint's `url`, a charge's
 * `callback_url`) is kept only when the WHATWG URL parser, which the sender uses, reads it as it was
 * written. `https://example.com\@127.0.0.1/` (WHATWG: path `/@127.0.0.1/` on example.com; other parsers:
 * user `example.com\`, host 127.0.0.1), `https:///x` (WHATWG: host `x`), a default port, a space or a
 * control character would mean one thing to a reviewer and another to the sender, so they are refused. The
 * only rewrites accepted are the harmless ones the parser always makes: scheme and host in lower case, and
 * `/` for an empty path. The stored URL is the parser's serialization (`href`). Port 0 is never a
 * destination. Pure (the SDK bundles the contract).
 */
export type UrlNormalForm = { ok: true; href: string } | { ok: false; reason: string };

export function urlNormalForm(input: string): UrlNormalForm {
  if (!URL.canParse(input)) return { ok: false, reason: 'not a valid URL' };
  const url = new URL(input);
  if (url.port === '0') return { ok: false, reason: 'port 0 is not a destination' };
  const href = url.href;
  // Case-insensitive: the parser changes the case of the scheme and host only, never of path or query.
  const same = (typed: string) => typed.toLowerCase() === href.toLowerCase();
  const emptyPath = url.pathname === '/' && !input.endsWith('/') && url.search === '' && url.hash === '';
  if (same(input) || (emptyPath && same(`${input}/`))) return { ok: true, href };
  return { ok: false, reason: `not written in its normal form (the URL parser reads it as ${href})` };
}

/** A destination URL in its normal form (urlNormalForm): 422 validation_error naming the field, else the href. */
export function normalizedUrl(maxLength: number) {
  return z
    .string()
    .min(1)
    .max(maxLength)
    .transform((value, ctx) => {
      const form = urlNormalForm(value);
      if (!form.ok) {
        ctx.addIssue({ code: 'custom', message: form.reason });
        return z.NEVER;
      }
      if (form.href.length > maxLength) {
        ctx.addIssue({ code: 'custom', message: `longer than ${maxLength} characters once normalized` });
        return z.NEVER;
      }
      return form.href;
    });
}
