import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { z } from 'zod';
import type { transactionWebhookEvent } from '../../src/contract/webhook-event.ts';

/** SPEC 6: the body of every delivery, `transaction.created` or `transaction.updated`. */
export type WebhookEvent = z.output<typeof transactionWebhookEvent>;

/** Headers as node:http (`req.headers`), fetch (`Headers`) or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

/** The delivery is not from Calebe, was altered, or is outside the timestamp tolerance (5 minutes). */
export class CalebeWebhookError extends Error {
  override readonly name = 'CalebeWebhookError';
}

function plainHeaders(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  const entries =
    headers instanceof Headers ? [...headers.entries()] : Object.entries(headers as Record<string, unknown>);
  for (const [name, value] of entries) {
    if (typeof value === 'string') out[name.toLowerCase()] = value;
    else if (Array.isArray(value) && typeof value[0] === 'string') out[name.toLowerCase()] = value[0];
  }
  return out;
}

/**
 * Verifies a delivery with the Standard Webhooks scheme the gateway signs with (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`) and returns its event. Pass the raw body exactly as received
 * (a re-serialized object no longer matches its signature) and the endpoint's or callback's secret
 * (`whsec_…`). Throws {@link CalebeWebhookError} when the signature does not match or the timestamp is more
 * than 5 minutes away from now: answer such a request with a 4xx and do not act on it.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
): WebhookEvent {
  const payload = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  try {
    return new Webhook(secret).verify(payload, plainHeaders(headers)) as WebhookEvent;
  } catch (error) {
    if (error instanceof WebhookVerificationError) throw new CalebeWebhookError(error.message);
    throw error;
  }
}
