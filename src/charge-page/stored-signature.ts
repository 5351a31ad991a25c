import { createHash } from 'node:crypto';
import { DOCUMENT_SIGNATURE_LENGTH, documentSignature } from './signature.ts';

/**
 * The charge link's signature as the `transactions` read model keeps it (issue 14, migration 0014): listing
 * 100 charges used to compute 100 HMACs (two for a boleto). The projection stores `<key id>.<signature>`,
 * where the key id is a short public digest of the signing secret; a read uses the stored signature when its
 * key id is the current secret's, and signs as before otherwise (rows from before the migration, a rotated
 * secret, a projection that ran without the secret). The charge page still verifies the link's signature
 * against the secret (SPEC 2.2, src/http/routes/charge-page.ts): nothing here is trusted from a request.
 *
 * The secret is per process: the gateway registers it at start (src/app.ts) before any projection runs.
 */
let current: { secret: string; keyId: string } | undefined;

/** A short, public name of a signing secret: 8 hex digits of a domain-separated digest. */
export function signingKeyId(secret: string): string {
  return createHash('sha256').update(`calebe:document-key-id:v1:${secret}`).digest('hex').slice(0, 8);
}

/** Registers the secret projections sign with (src/app.ts, once the secret is resolved). */
export function useDocumentSigningSecret(secret: string): void {
  if (current?.secret !== secret) current = { secret, keyId: signingKeyId(secret) };
}

/** What the projection stores for a charge: `<key id>.<signature>`, or null while no secret is registered. */
export function storedDocumentSignature(transactionId: string): string | null {
  return current ? `${current.keyId}.${documentSignature(current.secret, transactionId)}` : null;
}

/** The signature of `transactionId` under `secret`: the stored one when it was made with that secret. */
export function documentSignatureOf(secret: string, transactionId: string, stored: string | null): string {
  if (stored !== null) {
    const keyId = current?.secret === secret ? current.keyId : signingKeyId(secret);
    const shape = keyId.length + 1 + DOCUMENT_SIGNATURE_LENGTH;
    if (stored.length === shape && stored.startsWith(keyId) && stored[keyId.length] === '.') {
      return stored.slice(keyId.length + 1);
    }
  }
  return documentSignature(secret, transactionId);
}
