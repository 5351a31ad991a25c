import { createHmac, hkdfSync } from 'node:crypto';
import { DomainError } from '../../aggregates/decider.ts';
import type { Config } from '../../config.ts';
import { aeadOpen, aeadSeal } from '../../crypto/aead.ts';
import { credentialsKey } from '../../crypto/credentials.ts';
import type { CardData } from '../../providers/port.ts';

/**
 * The secrets of a card at rest and in idempotency (issue 25 item 2). A provider's reusable token is sealed
 * with AES-256-GCM under the credentials key, its associated data binding it to the card id, tenant, mode,
 * provider and environment: a sealed token copied onto another card, tenant or provider does not open. The
 * card data never rests: an idempotency key compares a keyed HMAC of it (a fingerprint no one without the
 * key can test guesses against, as PCI DSS 3.5.1 allows for a PAN), never the data.
 */

export type CardKeyConfig = Pick<Config, 'CREDENTIALS_ENCRYPTION_KEY' | 'DATABASE_URL' | 'CALEBE_DATA_DIR'>;

/** The key card secrets are sealed with; refused before anything is stored when none is configured. */
export async function cardKey(config: CardKeyConfig): Promise<Buffer> {
  const key = await credentialsKey(config);
  if (!key) {
    throw new DomainError(
      'provider_not_configured',
      'Card charges need CREDENTIALS_ENCRYPTION_KEY, which keeps card tokens sealed.',
    );
  }
  return key;
}

export interface CardBinding {
  readonly cardId: string;
  readonly tenantId: string;
  readonly livemode: boolean;
  readonly providerId: string | null;
  readonly environment: 'sandbox' | 'production';
}

function associatedData(b: CardBinding): string {
  return `calebe:card-token:v1:${JSON.stringify([b.cardId, b.tenantId, b.livemode, b.providerId, b.environment])}`;
}

export function sealCardToken(key: Buffer, binding: CardBinding, token: string): string {
  return aeadSeal(key, associatedData(binding), Buffer.from(token, 'utf8'));
}

/** Throws AeadOpenError (which carries nothing of the key or the token) when the binding differs. */
export function openCardToken(key: Buffer, binding: CardBinding, sealed: string): string {
  return aeadOpen(key, associatedData(binding), sealed).toString('utf8');
}

const fingerprintKeys = new WeakMap<Buffer, Buffer>();

/** HMAC-SHA256 of the card data under a key derived for this use only (HKDF), hex. */
export function cardFingerprint(key: Buffer, card: CardData): string {
  let derived = fingerprintKeys.get(key);
  if (!derived) {
    derived = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'calebe:card-fingerprint:v1', 32));
    fingerprintKeys.set(key, derived);
  }
  return createHmac('sha256', derived)
    .update(JSON.stringify([card.number, card.expiration, card.securityCode, card.holder]))
    .digest('hex');
}
