import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM over bytes with associated data, for the vault's two layers (src/crypto/vault.ts): a record
 * sealed with its data key, the data key wrapped by the master key. Same text format as the provider
 * credentials (`v1.<iv>.<ciphertext>.<tag>`, base64url) so both read alike in the database; a fresh
 * 96-bit random IV per message (each data key seals one message; the master key wraps one key per record).
 */

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const AEAD_KEY_BYTES = 32;

/** Wrong key, wrong associated data, or altered bytes. Carries nothing of the key or the message. */
export class AeadOpenError extends Error {
  override readonly name = 'AeadOpenError';
}

function checkKey(key: Buffer): void {
  if (key.length !== AEAD_KEY_BYTES) throw new RangeError('an AES-256-GCM key has 32 bytes');
}

export function aeadSeal(key: Buffer, associatedData: string, plaintext: Buffer): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return [VERSION, ...[iv, body, cipher.getAuthTag()].map((p) => p.toString('base64url'))].join('.');
}

export function aeadOpen(key: Buffer, associatedData: string, sealed: string): Buffer {
  checkKey(key);
  const parts = sealed.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION) throw new AeadOpenError('unknown sealed format');
  const [iv, body, tag] = parts.slice(1).map((p) => Buffer.from(p, 'base64url'));
  if (!iv || !body || !tag || iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
    throw new AeadOpenError('malformed sealed value');
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]);
  } catch {
    throw new AeadOpenError('the sealed value cannot be opened with this key and associated data');
  }
}
