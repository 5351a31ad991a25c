import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readOrCreateSecretFile } from './secret-file.ts';

/**
 * Provider credentials at rest (DESIGN.md "Secrets", SPEC 5.6): AES-256-GCM with the provider id as
 * associated data, so a ciphertext copied onto another provider fails to open instead of lending it its
 * secret. Format `v1.<iv>.<ciphertext>.<tag>` (base64url); the version lets the scheme change later.
 *
 * Issue 23 item 2.3: `v2` also binds the hosts the secret is sent to (a provider record's payment and API
 * hosts) as associated data, so a record whose hosts changed without its credentials being entered again
 * cannot open them: the stored key never reaches a host it was not given for. `v1` ciphertexts (written
 * before, and webhook secrets, which have no host) still open with the id alone.
 */

const VERSION = 'v1';
const BOUND_VERSION = 'v2';
const IV_BYTES = 12;
export const CREDENTIALS_KEY_BYTES = 32;

/** Opening failed: wrong key, another provider's ciphertext, or tampering. Never carries the secret. */
export class CredentialsDecryptError extends Error {
  override readonly name = 'CredentialsDecryptError';
}

export type Credentials = Record<string, unknown>;

function checkKey(key: Buffer): void {
  if (key.length !== CREDENTIALS_KEY_BYTES) throw new Error('the credentials key must have 32 bytes');
}

/** Where sealed credentials may be sent: the record's hosts as stored (null: the adapter's default). */
export type CredentialsBinding = readonly (string | null)[];

/** v1: the id; v2: the id and the hosts, as one unambiguous JSON array. */
function associatedData(providerId: string, binding: CredentialsBinding | undefined): Buffer {
  return Buffer.from(binding === undefined ? providerId : JSON.stringify([providerId, ...binding]), 'utf8');
}

/** `binding`: the hosts the credentials are for (v2); omitted, bound to the id alone (v1). */
export function encryptCredentials(
  key: Buffer,
  providerId: string,
  credentials: Credentials,
  binding?: CredentialsBinding,
): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(associatedData(providerId, binding));
  const body = Buffer.concat([cipher.update(JSON.stringify(credentials), 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  const version = binding === undefined ? VERSION : BOUND_VERSION;
  return [version, iv, body, tag].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

/**
 * Opens what encryptCredentials sealed. A v2 ciphertext opens only with the binding it was sealed with
 * (`binding` omitted counts as no hosts); a v1 ciphertext ignores it.
 */
export function decryptCredentials(
  key: Buffer,
  providerId: string,
  sealed: string,
  binding?: CredentialsBinding,
): Credentials {
  checkKey(key);
  const parts = sealed.split('.');
  if (parts.length !== 4 || (parts[0] !== VERSION && parts[0] !== BOUND_VERSION))
    throw new CredentialsDecryptError('unknown credentials format');
  const aad = associatedData(providerId, parts[0] === VERSION ? undefined : (binding ?? []));
  const [iv, body, tag] = parts.slice(1).map((p) => Buffer.from(p, 'base64url'));
  if (!iv || !body || !tag || iv.length !== IV_BYTES || tag.length !== 16) {
    throw new CredentialsDecryptError('malformed credentials');
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(aad);
    decipher.setAuthTag(tag);
    const text = Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    return JSON.parse(text) as Credentials;
  } catch {
    throw new CredentialsDecryptError('the credentials cannot be opened with this key and provider');
  }
}

/** Parses `CREDENTIALS_ENCRYPTION_KEY`: base64 of exactly 32 bytes. */
export function parseCredentialsKey(base64: string): Buffer | undefined {
  const key = Buffer.from(base64, 'base64');
  return key.length === CREDENTIALS_KEY_BYTES && key.toString('base64') === base64.trim() ? key : undefined;
}

export interface CredentialsKeyConfig {
  CREDENTIALS_ENCRYPTION_KEY?: string | undefined;
  DATABASE_URL?: string | undefined;
  CALEBE_DATA_DIR: string;
}

const cache = new WeakMap<CredentialsKeyConfig, Promise<Buffer | undefined>>();

/**
 * The key that seals provider credentials. Configured: `CREDENTIALS_ENCRYPTION_KEY`. Embedded database
 * without it: generated once into `<CALEBE_DATA_DIR>/credentials.key` (mode 0600) beside the data it
 * protects (see readOrCreateSecretFile: concurrent starts agree on one key). With DATABASE_URL and no key:
 * undefined, and storing credentials is refused (docs/decisions.md "Admin").
 */
export function credentialsKey(config: CredentialsKeyConfig): Promise<Buffer | undefined> {
  let pending = cache.get(config);
  if (!pending) {
    pending = resolveKey(config);
    cache.set(config, pending);
  }
  return pending;
}

async function resolveKey(config: CredentialsKeyConfig): Promise<Buffer | undefined> {
  if (config.CREDENTIALS_ENCRYPTION_KEY) {
    const key = parseCredentialsKey(config.CREDENTIALS_ENCRYPTION_KEY);
    if (!key) throw new Error('CREDENTIALS_ENCRYPTION_KEY must be base64 of 32 bytes');
    return key;
  }
  if (config.DATABASE_URL) return undefined;
  const stored = await readOrCreateSecretFile(config.CALEBE_DATA_DIR, 'credentials.key', () =>
    randomBytes(CREDENTIALS_KEY_BYTES).toString('base64'),
  );
  const key = parseCredentialsKey(stored);
  if (!key) throw new Error(`${config.CALEBE_DATA_DIR}/credentials.key does not hold base64 of 32 bytes`);
  return key;
}
