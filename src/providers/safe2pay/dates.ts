/**
 * Safe2Pay dates. The wire doc (2.6, 2.10, section 3) observed two formats for a boleto `DueDate`:
 * "dd/MM/yyyy" (ROB, Z22, LEO, official Node README) and "yyyy-MM-dd" (official WooCommerce plugin), plus the
 * .NET SDK's serialized DateTime ("yyyy-MM-ddTHH:mm:ss"); `PaymentDate` is "yyyy-MM-dd". Every shape is
 * accepted on input; the adapter always sends "dd/MM/yyyy", the format most sources use.
 */

function isCalendarDate(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

function iso(y: string, m: string, d: string): string | null {
  return isCalendarDate(Number(y), Number(m), Number(d)) ? `${y}-${m}-${d}` : null;
}

const BR = /^([0-9]{2})\/([0-9]{2})\/([0-9]{4})(?:[ T][0-9]{2}:[0-9]{2}(?::[0-9]{2})?)?$/;
const ISO =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[ T][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?)?$/;

/**
 * A provider date -> `YYYY-MM-DD`, or null when it is not a real calendar date in a known format. A time part,
 * when present, is ignored: the provider's dates are local Brazilian calendar days.
 */
export function parseProviderDate(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  const br = BR.exec(text);
  if (br) return iso(br[3] ?? '', br[2] ?? '', br[1] ?? '');
  const isoMatch = ISO.exec(text);
  if (isoMatch) return iso(isoMatch[1] ?? '', isoMatch[2] ?? '', isoMatch[3] ?? '');
  return null;
}

/** `YYYY-MM-DD` -> "dd/MM/yyyy" (the request format). */
export function toProviderDate(date: string): string {
  const [y, m, d] = date.split('-');
  return `${d}/${m}/${y}`;
}

/** SPEC 2.2 `boleto_pix_expires_at`: end of the due day in Brasilia (23:59:59, UTC-3 since 2019), in UTC. */
export function endOfDueDayUtc(dueDate: string): string {
  return new Date(`${dueDate}T23:59:59-03:00`).toISOString();
}
