/**
 * The emulator's own reading and writing of Safe2Pay money and dates. Kept apart from the adapter's
 * (`../safe2pay/money.ts`, `dates.ts`) on purpose: the emulator stands for the provider, so a conversion bug
 * in the adapter must not be mirrored by the server it is tested against.
 */

/** A JSON amount in reais (number or text) to integer centavos; null unless exact to the centavo. */
export function wireCentavos(value: unknown): number | null {
  const text = typeof value === 'number' && Number.isFinite(value) ? value.toString() : value;
  if (typeof text !== 'string') return null;
  const m = /^([0-9]{1,12})(?:\.([0-9]{1,2})0*)?$/.exec(text);
  if (!m) return null;
  return Number.parseInt(m[1] ?? '0', 10) * 100 + Number.parseInt((m[2] ?? '').padEnd(2, '0'), 10);
}

/** Integer centavos to the JSON number of reais the provider answers with (e.g. 1990 -> 19.9). */
export function wireReais(centavos: number): number {
  const text = String(centavos).padStart(3, '0');
  return Number.parseFloat(`${text.slice(0, -2)}.${text.slice(-2)}`);
}

/** "dd/MM/yyyy" or "yyyy-MM-dd" (both seen in requests, wire doc 2.6) to `YYYY-MM-DD`; null otherwise. */
export function wireDate(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const br = /^([0-9]{2})\/([0-9]{2})\/([0-9]{4})$/.exec(value);
  const iso = br ? `${br[3]}-${br[2]}-${br[1]}` : value;
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(iso)) return null;
  const date = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === iso ? iso : null;
}
