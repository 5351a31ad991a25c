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

/**
 * Issue 23 item 2.8: the rule a configured secret must pass at start (docs/decisions.md "Secrets, logs,
 * caching and the development emulator"). A generated secret passes it with overwhelming probability; a
 * typed or placeholder one (32 spaces, `aaaa…`, `0000…`, a repeated pair) does not. It is a floor, not an
 * estimate: zxcvbn and the like score human-chosen passwords against dictionaries, which says nothing of a
 * key, and the start must not refuse a password the panel accepts for the same people.
 */
export const SECRET_RULE = {
  /** Distinct characters a text secret (signing secret, passwords) must contain. */
  minDistinctCharacters: 8,
  /** Distinct byte values a 32-byte key must contain (32 random bytes: about 30; fewer than 16 never in practice). */
  minDistinctKeyBytes: 16,
} as const;

/** Values of .env.example that only stand in for a secret to generate; refused wherever they appear. */
export const SECRET_PLACEHOLDERS = ['replace-me-with-openssl-rand-hex-32'] as const;

/** Why a text secret is too weak to start with, or undefined when it passes SECRET_RULE. */
export function weakSecretReason(secret: string): string | undefined {
  if ((SECRET_PLACEHOLDERS as readonly string[]).includes(secret))
    return 'is the placeholder of .env.example: generate a value (openssl rand -hex 32)';
  if (secret.trim() === '') return 'is only whitespace: generate a value (openssl rand -base64 32)';
  const distinct = new Set(secret).size;
  if (distinct < SECRET_RULE.minDistinctCharacters)
    return `has ${distinct} distinct characters, fewer than ${SECRET_RULE.minDistinctCharacters}: generate a value (openssl rand -base64 32)`;
  return undefined;
}

/** Why a key (raw bytes) is too weak, or undefined when it passes SECRET_RULE (all-zero and one repeated byte fail). */
export function weakKeyReason(key: Uint8Array): string | undefined {
  const distinct = new Set(key).size;
  if (distinct === 1) return 'is one byte repeated: generate a key (openssl rand -base64 32)';
  if (distinct < SECRET_RULE.minDistinctKeyBytes)
    return `has ${distinct} distinct bytes, fewer than ${SECRET_RULE.minDistinctKeyBytes}: generate a key (openssl rand -base64 32)`;
  return undefined;
}
