import { randomBytes } from 'node:crypto';
import { ConfigError } from '../config.ts';
import { readOrCreateSecretFile } from '../crypto/secret-file.ts';
import { DOCUMENT_SECRET_MIN_LENGTH } from './signature.ts';

export interface DocumentSecretConfig {
  DOCUMENT_SIGNING_SECRET?: string | undefined;
  DATABASE_URL?: string | undefined;
  CALEBE_DATA_DIR: string;
}

export const DOCUMENT_KEY_FILE = 'document.key';

const cache = new WeakMap<DocumentSecretConfig, Promise<string>>();

/**
 * The secret that signs charge links (docs/decisions.md "Charges").
 * - `DOCUMENT_SIGNING_SECRET` set: used as is (src/config.ts requires at least 32 characters).
 * - Embedded database, not set: generated once into `<CALEBE_DATA_DIR>/document.key` (mode 0600, 32 random
 *   bytes as base64url) and reused, so links survive a restart (readOrCreateSecretFile: concurrent starts
 *   agree on one value).
 * - DATABASE_URL, not set: throws ConfigError. Several instances share that database and must all sign with
 *   the same secret, and a link, once sent to a payer, must keep working; a per-machine generated file would
 *   break both. The server calls this at start, so the gateway refuses to start with a clear message.
 */
export function documentSigningSecret(config: DocumentSecretConfig): Promise<string> {
  let pending = cache.get(config);
  if (!pending) {
    pending = resolveSecret(config);
    cache.set(config, pending);
    // A failed resolution is not cached: fixing the data directory and retrying must work.
    pending.catch(() => cache.delete(config));
  }
  return pending;
}

async function resolveSecret(config: DocumentSecretConfig): Promise<string> {
  if (config.DOCUMENT_SIGNING_SECRET !== undefined) {
    if (config.DOCUMENT_SIGNING_SECRET.length < DOCUMENT_SECRET_MIN_LENGTH) {
      throw new ConfigError(
        `DOCUMENT_SIGNING_SECRET must have at least ${DOCUMENT_SECRET_MIN_LENGTH} characters`,
      );
    }
    return config.DOCUMENT_SIGNING_SECRET;
  }
  if (config.DATABASE_URL) {
    throw new ConfigError(
      `invalid configuration:\n  DOCUMENT_SIGNING_SECRET: required when DATABASE_URL is set (at least ${DOCUMENT_SECRET_MIN_LENGTH} characters, the same on every instance); it signs the charge links sent to payers`,
    );
  }
  const secret = await readOrCreateSecretFile(config.CALEBE_DATA_DIR, DOCUMENT_KEY_FILE, () =>
    randomBytes(32).toString('base64url'),
  );
  if (secret.length < DOCUMENT_SECRET_MIN_LENGTH) {
    throw new ConfigError(
      `${config.CALEBE_DATA_DIR}/${DOCUMENT_KEY_FILE} must hold at least ${DOCUMENT_SECRET_MIN_LENGTH} characters`,
    );
  }
  return secret;
}
