import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signature in a charge link (SPEC 2.2: `document_url` = `{base_url}/cobranca/<transaction_id>/<signature>`).
 * Anyone holding the link can see the charge page, and nobody can build a link for another transaction
 * without the secret (docs/decisions.md "Charges").
 *
 * signature = base64url(HMAC-SHA256(secret, "calebe:document:v1:" + transaction_id)), first 32 characters
 * (192 bits). The prefix separates this use of the secret from any other; the version lets the scheme change.
 */
export const DOCUMENT_SIGNATURE_LENGTH = 32;
/** Minimum length of `DOCUMENT_SIGNING_SECRET` (also enforced by src/config.ts). */
export const DOCUMENT_SECRET_MIN_LENGTH = 32;

const DOMAIN = 'calebe:document:v1:';
const SIGNATURE_SHAPE = new RegExp(`^[A-Za-z0-9_-]{${DOCUMENT_SIGNATURE_LENGTH}}$`);

function checkSecret(secret: string): void {
  if (secret.length < DOCUMENT_SECRET_MIN_LENGTH) {
    throw new Error(
      `the document signing secret must have at least ${DOCUMENT_SECRET_MIN_LENGTH} characters`,
    );
  }
}

export function documentSignature(secret: string, transactionId: string): string {
  checkSecret(secret);
  return createHmac('sha256', secret)
    .update(DOMAIN + transactionId, 'utf8')
    .digest('base64url')
    .slice(0, DOCUMENT_SIGNATURE_LENGTH);
}

/**
 * True only when `signature` is exactly the signature of `transactionId`. Shape is checked first (length and
 * alphabet are public), then the bytes are compared in constant time.
 */
export function verifyDocumentSignature(secret: string, transactionId: string, signature: string): boolean {
  if (!SIGNATURE_SHAPE.test(signature)) return false;
  const expected = Buffer.from(documentSignature(secret, transactionId), 'ascii');
  const given = Buffer.from(signature, 'ascii');
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** `{base_url}/cobranca/<transaction_id>/<signature>`; a trailing slash on the base is dropped. */
export function documentUrl(baseUrl: string, secret: string, transactionId: string): string {
  return signedDocumentUrl(baseUrl, transactionId, documentSignature(secret, transactionId));
}

/** documentUrl with a signature already at hand (the read model's: src/charge-page/stored-signature.ts). */
export function signedDocumentUrl(baseUrl: string, transactionId: string, signature: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  return `${base}/cobranca/${encodeURIComponent(transactionId)}/${signature}`;
}

/** `<document_url>/boleto.pdf` (SPEC 2.2 `boleto_url`). */
export function boletoUrl(baseUrl: string, secret: string, transactionId: string): string {
  return `${documentUrl(baseUrl, secret, transactionId)}/boleto.pdf`;
}
