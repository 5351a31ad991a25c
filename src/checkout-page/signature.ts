import { createHmac, timingSafeEqual } from 'node:crypto';
import { DOCUMENT_SIGNATURE_LENGTH } from '../charge-page/signature.ts';

/**
 * The signature in a checkout link (`{base_url}/checkout/<checkout_id>/<signature>`; docs/decisions.md
 * "Hosted checkout (issue 25)"): the charge link's scheme (src/charge-page/signature.ts) with its own domain
 * prefix, so a charge's signature never opens a checkout of the same id, and the other way round.
 *
 * signature = base64url(HMAC-SHA256(secret, "calebe:checkout:v1:" + checkout_id)), first 32 characters.
 */
const DOMAIN = 'calebe:checkout:v1:';
const SIGNATURE_SHAPE = new RegExp(`^[A-Za-z0-9_-]{${DOCUMENT_SIGNATURE_LENGTH}}$`);

export function checkoutSignature(secret: string, checkoutId: string): string {
  return createHmac('sha256', secret)
    .update(DOMAIN + checkoutId, 'utf8')
    .digest('base64url')
    .slice(0, DOCUMENT_SIGNATURE_LENGTH);
}

/** True only when `signature` is exactly the signature of `checkoutId` (shape first, then constant time). */
export function verifyCheckoutSignature(secret: string, checkoutId: string, signature: string): boolean {
  if (!SIGNATURE_SHAPE.test(signature)) return false;
  const expected = Buffer.from(checkoutSignature(secret, checkoutId), 'ascii');
  const given = Buffer.from(signature, 'ascii');
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** The path of a checkout's page, without the base. */
export function checkoutPath(secret: string, checkoutId: string): string {
  return `/checkout/${encodeURIComponent(checkoutId)}/${checkoutSignature(secret, checkoutId)}`;
}

/** `{base_url}/checkout/<checkout_id>/<signature>`; a trailing slash on the base is dropped. */
export function checkoutUrl(baseUrl: string, secret: string, checkoutId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${checkoutPath(secret, checkoutId)}`;
}
