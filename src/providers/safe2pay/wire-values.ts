import type { Refused, Uncertain } from '../port.ts';

/**
 * What the Safe2Pay adapter reads its answers with, shared by the charge calls (adapter.ts) and the payouts
 * (transfers.ts): the envelope as interpreted, a detail object, and the provider's integer ids.
 */

/** An answer's envelope: its detail when the provider did the work, or why not. */
export type Interpreted =
  | { readonly ok: true; readonly detail: unknown; readonly httpStatus: number }
  | Refused
  | Uncertain;

export type Detail = Readonly<Record<string, unknown>>;

export function isRecord(value: unknown): value is Detail {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The provider's ids (`IdTransaction`, a transfer's `Id`) are ints in every SDK; some serialize them as strings. */
export function idOf(value: unknown): string | null {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return String(value);
  if (typeof value === 'string' && /^[0-9]{1,19}$/.test(value.trim())) return value.trim();
  return null;
}
