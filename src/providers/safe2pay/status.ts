import type { RemoteStatus } from '../port.ts';

/**
 * Safe2Pay transaction status codes (wire doc 2.15) -> SPEC 3.1 states, for Pix and boleto charges.
 * Only codes with a clear meaning for these methods are mapped; everything else (9 and 10 are undocumented;
 * 5 dispute, 13 chargeback and 14 pre-authorized are card-only; 11 "Liberado" and 12 "Em cancelamento" have
 * no SPEC state that is safe to claim; any unknown code) is null, which the adapter answers as `uncertain`:
 * an unrecognized status is never pending or paid (SPEC 3.1).
 */
const MAPPED: Readonly<Record<number, RemoteStatus>> = {
  1: 'pending', // Pendente
  2: 'processing', // Processamento: payment detected, not settled (SPEC 3.1 "provider status 2")
  3: 'paid', // Autorizado
  4: 'paid', // Disponível: funds released, still paid
  6: 'refunded', // Devolvido
  7: 'expired', // Baixado: boleto written off by the bank (SPEC 3.1: only then is a real boleto expired)
  8: 'failed', // Recusado
};

/** The status as a number: the SDKs type it as a number or a numeric string (wire doc 2.10). */
export function statusCode(value: unknown): number | null {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^[0-9]{1,4}$/.test(value.trim())) return Number(value.trim());
  // The transaction read and the webhook also carry `TransactionStatus{Id, Code, Name}` (wire doc 2.15).
  if (value !== null && typeof value === 'object' && 'Code' in value) return statusCode(value.Code);
  return null;
}

export function mapStatus(code: number | null): RemoteStatus | null {
  return code === null ? null : (MAPPED[code] ?? null);
}

/**
 * A card charge's statuses (wire doc wave 2b §1.3; issue 25): 1/2 while antifraud or the acquirer is pending
 * are `processing`, never `pending` (a card is captured at once, SPEC 4.9); 5 "Em disputa" stays `paid` (a
 * chargeback requested, no SPEC state; nothing else is recorded); 13 "Chargeback" is `refunded`, the only SPEC
 * exit from `paid`. 14 "Pré-autorizado" (never asked for) and every other code are null: `uncertain`.
 */
const CARD: Readonly<Record<number, RemoteStatus>> = {
  1: 'processing',
  2: 'processing',
  3: 'paid',
  4: 'paid',
  5: 'paid',
  6: 'refunded',
  8: 'failed',
  13: 'refunded',
};

export function mapCardStatus(code: number | null): RemoteStatus | null {
  return code === null ? null : (CARD[code] ?? null);
}
