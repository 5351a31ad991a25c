import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API keys (SPEC 5.2): `clb_test_` creates and reads only test charges; `clb_live_` is production; the
 * older production prefix `clb_` (no mode segment) keeps working. 32 random bytes follow, base64url.
 */
export const API_KEY_PREFIX = { test: 'clb_test_', live: 'clb_live_', legacyLive: 'clb_' } as const;
export const SESSION_TOKEN_PREFIX = 'cls_';

export function randomSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/** Keys and tokens are long and random, so a fast digest is enough (DESIGN.md "Secrets"). */
export function sha256Hex(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function digestsEqual(aHex: string, bHex: string): boolean {
  const a = Buffer.from(aHex, 'hex');
  const b = Buffer.from(bHex, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The mode an API key's prefix claims: false for test keys, true for live and legacy live keys. */
export function livemodeOfKey(key: string): boolean | undefined {
  if (key.startsWith(API_KEY_PREFIX.test)) return false;
  if (key.startsWith(API_KEY_PREFIX.live) || key.startsWith(API_KEY_PREFIX.legacyLive)) return true;
  return undefined;
}

/** What listings show of a secret so a person can recognize it: the prefix and four characters. */
export function displayPrefix(secret: string): string {
  const mode =
    [API_KEY_PREFIX.test, API_KEY_PREFIX.live].find((p) => secret.startsWith(p)) ?? API_KEY_PREFIX.legacyLive;
  return secret.slice(0, mode.length + 4);
}
