import { hkdfSync, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * SPEC 6 leaves the signature scheme open ("events are signed"); we use Standard Webhooks
 * (https://www.standardwebhooks.com) through its reference package, so integrators can verify with any
 * of its libraries. docs/decisions.md "Webhooks".
 */

/** A new endpoint secret: `whsec_` + base64 of 24 random bytes (192-bit key, the format the package reads). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * The secret signing deliveries to a charge's `callback_url`, one per tenant and mode: derived (HKDF-SHA256)
 * from a server root secret, so it needs no storage and is the same on every instance. The panel shows it
 * (`GET /admin/webhook-callback-secret`). docs/decisions.md "Webhooks".
 */
export function callbackWebhookSecret(rootSecret: string, tenantId: string, mode: 'live' | 'test'): string {
  const key = hkdfSync('sha256', rootSecret, 'calebe-webhook-callback', `${tenantId}:${mode}`, 24);
  return `whsec_${Buffer.from(key).toString('base64')}`;
}

/**
 * The `webhook-signature` value: one `v1,<base64>` per secret, space-separated. During a rotation the
 * endpoint has the old and the new secret (24 h), so receivers holding either one keep verifying.
 */
export function signatureHeader(
  secrets: readonly string[],
  msgId: string,
  timestamp: Date,
  body: string,
): string {
  if (secrets.length === 0) throw new Error('at least one webhook secret is required');
  return secrets.map((secret) => new Webhook(secret).sign(msgId, timestamp, body)).join(' ');
}

export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'content-type': 'application/json';
  'user-agent': string;
  [name: string]: string;
}

/** Every header of one delivery. Retries reuse the msgId (receivers deduplicate on it) with a new timestamp. */
export function webhookHeaders(
  secrets: readonly string[],
  msgId: string,
  timestamp: Date,
  body: string,
): WebhookHeaders {
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signatureHeader(secrets, msgId, timestamp, body),
    'content-type': 'application/json',
    'user-agent': 'Calebe-Webhooks/1',
  };
}
